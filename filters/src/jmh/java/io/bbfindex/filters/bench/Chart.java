package io.bbfindex.filters.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Stroke;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;

/**
 * A small line chart drawn with Java2D (headless), so the paper's figures need no plotting
 * dependency: linear or log-10 y axis, x ticks given by the caller, series with markers, dashed or
 * solid, vertical marker lines (cache sizes), and a legend.
 */
final class Chart {

  /** One series: points (x, y), drawn as a line with markers; NaN y values are skipped. */
  record Series(String name, Color color, boolean dashed, boolean line, double[] x, double[] y) {}

  private record Marker(double x, String label) {}

  static final Color RED = new Color(0xD62728);
  static final Color ORANGE = new Color(0xFF7F0E);
  static final Color BLUE = new Color(0x1F77B4);
  static final Color GREEN = new Color(0x2CA02C);
  static final Color PURPLE = new Color(0x9467BD);
  static final Color GREY = new Color(0x7F7F7F);

  private final String title;
  private final String xLabel;
  private final String yLabel;
  private final boolean logY;
  private final List<Series> series = new ArrayList<>();
  private final List<Marker> markers = new ArrayList<>();
  private boolean legendBottom;
  private double[] xTicks = new double[0];
  private String[] xTickLabels = new String[0];

  Chart(String title, String xLabel, String yLabel, boolean logY) {
    this.title = title;
    this.xLabel = xLabel;
    this.yLabel = yLabel;
    this.logY = logY;
  }

  Chart add(Series s) {
    series.add(s);
    return this;
  }

  Chart marker(double x, String label) {
    markers.add(new Marker(x, label));
    return this;
  }

  /** Puts the legend in the bottom right corner instead of the top right. */
  Chart legendBottom() {
    this.legendBottom = true;
    return this;
  }

  Chart xTicks(double[] ticks, String[] labels) {
    this.xTicks = ticks;
    this.xTickLabels = labels;
    return this;
  }

  /** Writes the panels side by side, each {@code w x h} pixels, as one PNG. */
  static void write(Path png, int w, int h, Chart... panels) throws IOException {
    System.setProperty("java.awt.headless", "true");
    BufferedImage image = new BufferedImage(w * panels.length, h, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setRenderingHint(
        RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, w * panels.length, h);
    for (int i = 0; i < panels.length; i++) {
      panels[i].draw(g, i * w, 0, w, h);
    }
    g.dispose();
    Files.createDirectories(png.toAbsolutePath().getParent());
    ImageIO.write(image, "png", png.toFile());
  }

  private void draw(Graphics2D g, int ox, int oy, int w, int h) {
    Font base = new Font(Font.SANS_SERIF, Font.PLAIN, 13);
    g.setFont(base);
    FontMetrics fm = g.getFontMetrics();
    int left = ox + 78;
    int right = ox + w - 20;
    int top = oy + 44;
    int bottom = oy + h - 62;

    double xMin = Double.POSITIVE_INFINITY;
    double xMax = Double.NEGATIVE_INFINITY;
    double yMin = Double.POSITIVE_INFINITY;
    double yMax = Double.NEGATIVE_INFINITY;
    for (Series s : series) {
      for (int i = 0; i < s.x().length; i++) {
        double y = s.y()[i];
        if (Double.isNaN(y) || (logY && y <= 0)) {
          continue;
        }
        xMin = Math.min(xMin, s.x()[i]);
        xMax = Math.max(xMax, s.x()[i]);
        yMin = Math.min(yMin, y);
        yMax = Math.max(yMax, y);
      }
    }
    for (double t : xTicks) {
      xMin = Math.min(xMin, t);
      xMax = Math.max(xMax, t);
    }
    if (xMin == xMax) {
      xMax = xMin + 1;
    }
    double[] yTicks;
    if (logY) {
      double lo = Math.floor(Math.log10(yMin));
      double hi = Math.ceil(Math.log10(yMax));
      if (lo == hi) {
        hi = lo + 1;
      }
      yMin = lo;
      yMax = hi;
      yTicks = new double[(int) (hi - lo) + 1];
      for (int i = 0; i < yTicks.length; i++) {
        yTicks[i] = lo + i;
      }
    } else {
      yMin = 0;
      double step = niceStep(yMax / 5);
      yMax = Math.ceil(yMax * 1.08 / step) * step;
      yTicks = new double[(int) Math.round(yMax / step) + 1];
      for (int i = 0; i < yTicks.length; i++) {
        yTicks[i] = i * step;
      }
    }
    final double x0 = xMin;
    final double x1 = xMax;
    final double y0 = yMin;
    final double y1 = yMax;
    java.util.function.DoubleUnaryOperator px = x -> left + (x - x0) / (x1 - x0) * (right - left);
    java.util.function.DoubleUnaryOperator py =
        y -> bottom - ((logY ? Math.log10(y) : y) - y0) / (y1 - y0) * (bottom - top);

    // grid and y ticks
    for (double t : yTicks) {
      int y = (int) Math.round(bottom - (t - y0) / (y1 - y0) * (bottom - top));
      g.setColor(new Color(0xE6E6E6));
      g.drawLine(left, y, right, y);
      g.setColor(Color.DARK_GRAY);
      String label = logY ? "1e" + (int) t : trim(t);
      g.drawString(label, left - 8 - fm.stringWidth(label), y + fm.getAscent() / 2 - 2);
    }
    for (int i = 0; i < xTicks.length; i++) {
      int x = (int) Math.round(px.applyAsDouble(xTicks[i]));
      g.setColor(new Color(0xF0F0F0));
      g.drawLine(x, top, x, bottom);
      g.setColor(Color.DARK_GRAY);
      g.drawLine(x, bottom, x, bottom + 4);
      String label = xTickLabels[i];
      g.drawString(label, x - fm.stringWidth(label) / 2, bottom + 18);
    }
    // cache-size markers
    Stroke solid = g.getStroke();
    for (Marker m : markers) {
      int x = (int) Math.round(px.applyAsDouble(m.x()));
      g.setColor(GREY);
      g.setStroke(
          new BasicStroke(
              1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {3f, 4f}, 0f));
      g.drawLine(x, top, x, bottom);
      g.setStroke(solid);
      g.drawString(m.label(), x + 3, top + 14);
    }
    // axes
    g.setColor(Color.BLACK);
    g.drawRect(left, top, right - left, bottom - top);
    // series
    for (Series s : series) {
      g.setColor(s.color());
      g.setStroke(
          s.dashed()
              ? new BasicStroke(
                  2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f, new float[] {7f, 5f}, 0f)
              : new BasicStroke(2f));
      int prevX = Integer.MIN_VALUE;
      int prevY = 0;
      for (int i = 0; i < s.x().length; i++) {
        double yv = s.y()[i];
        if (Double.isNaN(yv) || (logY && yv <= 0)) {
          prevX = Integer.MIN_VALUE;
          continue;
        }
        int x = (int) Math.round(px.applyAsDouble(s.x()[i]));
        int y = (int) Math.round(py.applyAsDouble(yv));
        if (s.line() && prevX != Integer.MIN_VALUE) {
          g.drawLine(prevX, prevY, x, y);
        }
        g.setStroke(new BasicStroke(1.5f));
        if (s.line()) {
          g.fillOval(x - 3, y - 3, 7, 7);
        } else {
          g.drawRect(x - 4, y - 4, 8, 8);
        }
        g.setStroke(
            s.dashed()
                ? new BasicStroke(
                    2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f, new float[] {7f, 5f}, 0f)
                : new BasicStroke(2f));
        prevX = x;
        prevY = y;
      }
    }
    g.setStroke(solid);
    // titles
    g.setColor(Color.BLACK);
    g.setFont(base.deriveFont(Font.BOLD, 15f));
    FontMetrics tm = g.getFontMetrics();
    g.drawString(title, ox + (w - tm.stringWidth(title)) / 2, oy + 24);
    g.setFont(base);
    g.drawString(xLabel, left + (right - left - fm.stringWidth(xLabel)) / 2, bottom + 42);
    Graphics2D r = (Graphics2D) g.create();
    r.rotate(-Math.PI / 2);
    r.drawString(yLabel, -(top + (bottom - top + fm.stringWidth(yLabel)) / 2), ox + 18);
    r.dispose();
    // legend, top right inside the plot
    int lw = 0;
    for (Series s : series) {
      lw = Math.max(lw, fm.stringWidth(s.name()));
    }
    int lx = right - lw - 52;
    int lh = series.size() * 18 + 8;
    int ly = legendBottom ? bottom - lh - 6 : top + 10;
    g.setColor(new Color(255, 255, 255, 230));
    g.fillRect(lx - 6, ly - 4, lw + 52, lh);
    g.setColor(Color.GRAY);
    g.drawRect(lx - 6, ly - 4, lw + 52, lh);
    for (int i = 0; i < series.size(); i++) {
      Series s = series.get(i);
      int y = ly + 10 + i * 18;
      g.setColor(s.color());
      g.setStroke(
          s.dashed()
              ? new BasicStroke(
                  2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f, new float[] {7f, 5f}, 0f)
              : new BasicStroke(2f));
      if (s.line()) {
        g.drawLine(lx, y, lx + 32, y);
        g.fillOval(lx + 13, y - 3, 7, 7);
      } else {
        g.setStroke(new BasicStroke(1.5f));
        g.drawRect(lx + 12, y - 4, 8, 8);
      }
      g.setStroke(solid);
      g.setColor(Color.BLACK);
      g.drawString(s.name(), lx + 40, y + fm.getAscent() / 2 - 2);
    }
  }

  private static double niceStep(double raw) {
    double mag = Math.pow(10, Math.floor(Math.log10(raw)));
    double f = raw / mag;
    double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
    return nice * mag;
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? String.valueOf((long) v) : String.format("%.1f", v);
  }
}
