package io.bbfindex.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.benchmarks.http.ServerProcess;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.follow.testnode.TestNodes;
import io.bbfindex.ingest.encoding.Hash32;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The page at {@code /} in a real browser (issue 27 point 7): Debian's headless Chromium, driven
 * through Debian's chromedriver, opens the page of a real {@code serve --follow} of a regtest node,
 * looks up a mempool tx, and shows it {@code confirmed} once a block is mined, without a reload
 * (the page's own EventSource on {@code /v1/tx/{txid}/events}). The page runs under its own
 * Content-Security-Policy: a violation in the browser's log fails the test. A screenshot of the
 * confirmed state is saved under {@code deploy/target/page-in-chromium/}.
 */
class PageInChromiumTest {
  private static final Duration READY = Duration.ofSeconds(20);

  /** From the mining call to the page's text: the SSE bound (1 s) plus a browser's slack. */
  private static final Duration CONFIRMED_WITHIN = Duration.ofSeconds(10);

  @TempDir Path tmp;

  @Test
  void aTrackedMempoolTxTurnsConfirmedWithoutAReload() throws Exception {
    Tool chromium = Tool.require("chromium");
    Tool chromedriver = Tool.require("chromedriver");
    try (RegtestNode node = TestNodes.start(true, RegtestNode.CURRENT)) {
      node.mine(101);
      node.stop(); // Core writes its block index at shutdown: the history snapshot needs it
      node.restart();
      Hash32 paid = node.send("bech32", 1.0);
      try (ServerProcess server = Deploy.followServer(node, tmp, "follow")) {
        WebDriver browser = browser(chromium, chromedriver);
        try {
          browser.get(server.baseUrl() + "/");
          browser.findElement(By.id("txid")).sendKeys(paid.displayHex());
          browser.findElement(By.id("go")).click();
          awaitText(browser, "state", "mempool", READY);
          awaitText(browser, "live", "connected", READY);
          new WebDriverWait(browser, READY)
              .until(
                  b ->
                      "following"
                          .equals(b.findElement(By.id("follow")).getDomAttribute("data-state")));
          // a reload would lose this
          JavascriptExecutor js = (JavascriptExecutor) browser;
          js.executeScript("window.bbfNoReload = 'still this document';");

          long mining = System.nanoTime();
          Hash32 block = node.mine(1).get(0);
          int height = node.rpc().call("getblockcount").asInt();
          awaitText(browser, "state", "confirmed", CONFIRMED_WITHIN);
          System.out.printf(
              "mining call to the page showing confirmed: %.0f ms%n",
              (System.nanoTime() - mining) / 1e6);
          assertEquals("still this document", js.executeScript("return window.bbfNoReload;"));
          // the location, from GET /v1/tx/{txid} after the event
          new WebDriverWait(browser, READY)
              .until(b -> block.displayHex().equals(field(b, "blockHash")));
          assertEquals(String.valueOf(height), field(browser, "height"));
          assertTrue(
              browser.findElement(By.id("events")).getText().contains("confirmed"),
              browser.findElement(By.id("events")).getText());
          assertEquals(
              "/#" + paid.displayHex(),
              js.executeScript("return location.pathname + location.hash;"));

          Path shot = screenshot(browser);
          System.out.println("screenshot of the page showing confirmed: " + shot);

          // the address kept the txid: opened again (a bookmark, a shared link), the same tx
          browser.navigate().refresh();
          awaitText(browser, "state", "confirmed", READY);
          assertEquals(null, js.executeScript("return window.bbfNoReload ?? null;"));
          assertEquals(
              paid.displayHex(), browser.findElement(By.id("txid")).getDomProperty("value"));
          assertNoCspViolation(browser);
        } finally {
          browser.quit();
        }
      }
    }
  }

  /** Headless Chromium with a fresh profile, nothing fetched from elsewhere. */
  private WebDriver browser(Tool chromium, Tool chromedriver) {
    ChromeOptions options = new ChromeOptions();
    options.setBinary(chromium.path().toFile());
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage", // a container's small /dev/shm must not crash the renderer
        "--window-size=1000,900",
        "--user-data-dir=" + tmp.resolve("chromium-profile"));
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    options.setCapability("goog:loggingPrefs", logs);
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(chromedriver.path().toFile())
            .usingAnyFreePort()
            .build();
    return new ChromeDriver(service, options);
  }

  private static void awaitText(WebDriver browser, String id, String text, Duration within) {
    new WebDriverWait(browser, within)
        .withMessage(
            () -> "#" + id + " is '" + browser.findElement(By.id(id)).getText() + "', not " + text)
        .until(b -> text.equals(b.findElement(By.id(id)).getText()));
  }

  /** The value the page shows for {@code key} of the JSON route's answer. */
  private static String field(WebDriver browser, String key) {
    Object v =
        ((JavascriptExecutor) browser)
            .executeScript(
                "for (const dt of document.querySelectorAll('#fields dt')) if (dt.textContent ==="
                    + " arguments[0]) return dt.nextElementSibling.textContent; return null;",
                key);
    return v == null ? "" : v.toString();
  }

  private static Path screenshot(WebDriver browser) throws Exception {
    Path dir = Path.of(System.getProperty("bbf.deploy", ".")).resolve("target/page-in-chromium");
    Files.createDirectories(dir);
    Path shot = dir.resolve("confirmed.png").toAbsolutePath();
    Files.write(shot, ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
    return shot;
  }

  private static void assertNoCspViolation(WebDriver browser) {
    List<LogEntry> entries = browser.manage().logs().get(LogType.BROWSER).getAll();
    for (LogEntry e : entries) {
      assertTrue(
          !e.getMessage().contains("Content Security Policy")
              && !e.getMessage().contains("Content-Security-Policy"),
          "the page broke its own policy: " + e.getMessage());
    }
  }
}
