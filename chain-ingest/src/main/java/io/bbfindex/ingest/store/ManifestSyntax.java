package io.bbfindex.ingest.store;

/**
 * The shapes of a manifest's per-file fields, checked by hand: what the patterns {@code
 * file\.\d{5,10}}, {@code [A-Za-z0-9._-]{1,64}} and {@code [0-9a-f]{8}} match, exactly (ASCII
 * classes; {@code \d} is {@code [0-9]} without UNICODE_CHARACTER_CLASS).
 *
 * <p>Why not the patterns: every start of serve parses the store's manifest three times (the
 * store's salt, the build's inspection, the store's reopen), each line of a block file (5,600 on
 * mainnet) through all three, and this early in the process the regex engine runs interpreted: its
 * matches were ~0.1 s of the way to the first answer in a profile.
 */
final class ManifestSyntax {

  private ManifestSyntax() {}

  /** {@code file\.\d{5,10}}: a block file's key. */
  static boolean isFileKey(String s) {
    int n = s.length();
    return n >= 10 && n <= 15 && s.startsWith("file.") && allDigits(s, 5, n);
  }

  /** {@code [A-Za-z0-9._-]{1,64}}: a filter file's name. */
  static boolean isFileName(String s) {
    int n = s.length();
    if (n < 1 || n > 64) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (!(isDigit(c)
          || (c >= 'A' && c <= 'Z')
          || (c >= 'a' && c <= 'z')
          || c == '.'
          || c == '_'
          || c == '-')) {
        return false;
      }
    }
    return true;
  }

  /** {@code [0-9a-f]{8}}: a CRC32C in lower-case hex. */
  static boolean isCrc(String s) {
    if (s.length() != 8) {
      return false;
    }
    for (int i = 0; i < 8; i++) {
      char c = s.charAt(i);
      if (!(isDigit(c) || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  private static boolean allDigits(String s, int from, int to) {
    for (int i = from; i < to; i++) {
      if (!isDigit(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }
}
