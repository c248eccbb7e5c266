package io.bbfindex.app;

/** Entry point of the {@code bbf-index} command line. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.out.println("bbf-index: commands are being built; see README.md");
  }
}
