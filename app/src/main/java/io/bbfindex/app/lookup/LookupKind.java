package io.bbfindex.app.lookup;

/** What was looked up; the {@code kind} tag of {@code bbf_lookups_total}. */
public enum LookupKind {
  TX("tx"),
  BLOCK("block");

  private final String tag;

  LookupKind(String tag) {
    this.tag = tag;
  }

  public String tag() {
    return tag;
  }
}
