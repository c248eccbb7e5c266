package io.bbfindex.ingest.store;

import static io.bbfindex.ingest.encoding.HashKeys.toDisplayHex;

import io.bbfindex.ingest.encoding.HashKeys;
import io.bbfindex.ingest.store.Manifest.BlockHashEntry;
import io.bbfindex.ingest.store.Manifest.FileEntry;
import io.bbfindex.ingest.store.Manifest.SummaryEntry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * The text form of a {@link Manifest}, and its strict parser.
 *
 * <h2>Format (version 1)</h2>
 *
 * UTF-8 text, one {@code key=value} per line, in this order:
 *
 * <pre>
 *   format=bbf-index-manifest
 *   version=1
 *   filterFormatVersion=1              filters module's FilterFile version
 *   createdMillis=1763700000000
 *   datadir=/home/u/.bitcoin           rest of the line, verbatim (no CR/LF allowed)
 *   tipHash=00000000...                display hex of the active tip at build time
 *   tipHeight=599
 *   txindexTipHeight=599               -1 when the txindex never committed
 *   derivation=1                       1 unsalted, 2 salted
 *   salt=0000000000000000              16 hex digits
 *   targetFpr=0.01                     per-file and block-hash filters
 *   summaryFpr=0.01
 *   summaryHeadroom=1.25
 *   records=615                        't' rows scanned (sum of the per-file keys + stray rows)
 *   summary=name:tx-summary.bbf keys:615 capacity:2048 crc:1a2b3c4d
 *   blocks=name:block-hashes.bbf keys:600 digest:&lt;64 hex&gt; crc:...
 *   file.00000=name:tx-blk00000.bbf keys:615 capacity:616 fBlocks:600 fSize:123 heightLast:599 crc:...
 *   ... one file.NNNNN line per block file, ascending
 *   crc32c=89abcdef                    CRC32C of every byte before this line
 * </pre>
 *
 * {@link #parse} refuses, naming the file and the line, a bad or missing checksum line (which is
 * also what a truncated file looks like), an unknown version, and any missing, repeated, unknown or
 * out-of-range field.
 */
public final class ManifestCodec {

  /** The version of the text form this code writes and reads. */
  public static final int VERSION = 1;

  private static final String FORMAT = "bbf-index-manifest";
  private static final HexFormat HEX = HexFormat.of();

  // compiled once (the per-file fields are checked by hand: ManifestSyntax says why)
  private static final Pattern HEX_64 = Pattern.compile("[0-9a-f]{64}");

  private ManifestCodec() {}

  /** The text form of {@code m}, checksum line included. */
  public static String render(Manifest m) {
    StringBuilder sb = new StringBuilder(256 + m.files().size() * 128);
    line(sb, "format", FORMAT);
    line(sb, "version", Integer.toString(VERSION));
    line(sb, "filterFormatVersion", Integer.toString(m.filterFormatVersion()));
    line(sb, "createdMillis", Long.toString(m.createdMillis()));
    line(sb, "datadir", m.datadir());
    line(sb, "tipHash", toDisplayHex(m.tipHash()));
    line(sb, "tipHeight", Integer.toString(m.tipHeight()));
    line(sb, "txindexTipHeight", Integer.toString(m.txindexTipHeight()));
    line(sb, "derivation", Integer.toString(m.derivationId()));
    line(sb, "salt", HEX.toHexDigits(m.salt()));
    line(sb, "targetFpr", Double.toString(m.targetFpr()));
    line(sb, "summaryFpr", Double.toString(m.summaryFpr()));
    line(sb, "summaryHeadroom", Double.toString(m.summaryHeadroom()));
    line(sb, "records", Long.toString(m.records()));
    SummaryEntry summary = m.summary();
    line(
        sb,
        "summary",
        fields(
            "name",
            summary.name(),
            "keys",
            summary.keys(),
            "capacity",
            summary.capacity(),
            "crc",
            crcHex(summary.headerCrc())));
    BlockHashEntry blocks = m.blocks();
    line(
        sb,
        "blocks",
        fields(
            "name",
            blocks.name(),
            "keys",
            blocks.keys(),
            "digest",
            blocks.digest(),
            "crc",
            crcHex(blocks.headerCrc())));
    for (FileEntry f : m.files()) {
      line(
          sb,
          fileKey(f.file()),
          fields(
              "name",
              f.name(),
              "keys",
              f.keys(),
              "capacity",
              f.capacity(),
              "fBlocks",
              f.fBlocks(),
              "fSize",
              f.fSize(),
              "heightLast",
              f.heightLast(),
              "crc",
              crcHex(f.headerCrc())));
    }
    byte[] body = sb.toString().getBytes(StandardCharsets.UTF_8);
    line(sb, "crc32c", crcHex(crc32c(body, body.length)));
    return sb.toString();
  }

  private static void line(StringBuilder sb, String key, String value) {
    sb.append(key).append('=').append(value).append('\n');
  }

  private static String fields(Object... kv) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < kv.length; i += 2) {
      if (i > 0) {
        sb.append(' ');
      }
      sb.append(kv[i]).append(':').append(kv[i + 1]);
    }
    return sb.toString();
  }

  /**
   * {@code file.%05d}, without {@code String.format} for the file numbers a store has: rendering
   * the manifest formats one per block file (5,600 on mainnet) at every start of serve.
   */
  static String fileKey(int file) {
    if (file < 0) {
      return String.format(Locale.ROOT, "file.%05d", file); // the sign inside the padding
    }
    String digits = Integer.toString(file);
    return digits.length() >= 5
        ? "file." + digits
        : "file." + "00000".substring(digits.length()) + digits;
  }

  /**
   * Parses {@code bytes} as the content of {@code file} (named in every exception).
   *
   * @throws FilterStoreException naming {@code file} (and the line) when the text is truncated,
   *     corrupt, of an unknown version or breaks a field's rule
   */
  public static Manifest parse(Path file, byte[] bytes) throws FilterStoreException {
    return new Parser(file, bytes).parse();
  }

  /**
   * The salt of the manifest {@code bytes} (content of {@code file}), after its checksum: only the
   * lines before it are read, not the line per block file that {@link #parse} validates (5,600 on
   * mainnet: a parse costs about 0.1 s on the way to serve's first answer, which needs the salt and
   * the target FPR before the store it verifies with a full parse).
   *
   * @throws FilterStoreException as {@link #parse} when the checksum fails, or when no valid salt
   *     line comes before the first per-file line
   */
  public static long salt(Path file, byte[] bytes) throws FilterStoreException {
    Parser p = new Parser(file, bytes);
    p.headerLine("salt");
    return p.saltField();
  }

  /**
   * The per-file and block-hash filters' target FPR of the manifest {@code bytes}, read as {@link
   * #salt} is.
   *
   * @throws FilterStoreException as {@link #salt}
   */
  public static double targetFpr(Path file, byte[] bytes) throws FilterStoreException {
    Parser p = new Parser(file, bytes);
    p.headerLine("targetFpr");
    return p.fprField("targetFpr");
  }

  /** Strict line parser; every problem names the manifest file and the 1-based line. */
  private static final class Parser {
    private final Path file;
    private final byte[] bytes;
    private final Map<String, String> values = new LinkedHashMap<>();
    private final Map<String, Integer> lineOf = new LinkedHashMap<>();

    Parser(Path file, byte[] bytes) {
      this.file = file;
      this.bytes = bytes;
    }

    Manifest parse() throws FilterStoreException {
      int lastLineStart = findChecksumLine();
      String body = new String(bytes, 0, lastLineStart, StandardCharsets.UTF_8);
      String[] lines = body.split("\n", -1);
      // body ends with '\n', so the split's last element is empty
      for (int i = 0; i < lines.length - 1; i++) {
        String l = lines[i];
        int eq = l.indexOf('=');
        if (eq <= 0) {
          throw bad(i + 1, "not a key=value line: '" + abbreviate(l) + "'");
        }
        String key = l.substring(0, eq);
        if (values.putIfAbsent(key, l.substring(eq + 1)) != null) {
          throw bad(i + 1, "field '" + key + "' appears twice");
        }
        lineOf.put(key, i + 1);
      }
      if (!FORMAT.equals(values.get("format"))) {
        throw bad(1, "not a bbf-index manifest (first line must be format=" + FORMAT + ")");
      }
      int version = intField("version", 1, Integer.MAX_VALUE);
      if (version != VERSION) {
        throw bad(
            lineOf.get("version"),
            "manifest version "
                + version
                + " is not supported (this build reads "
                + VERSION
                + "); rebuild the store");
      }
      List<FileEntry> files = new ArrayList<>();
      for (String key : List.copyOf(values.keySet())) {
        if (key.startsWith("file.")) {
          files.add(fileEntry(key));
        }
      }
      Manifest m =
          new Manifest(
              intField("filterFormatVersion", 1, Integer.MAX_VALUE),
              longField("createdMillis", 0, Long.MAX_VALUE),
              take("datadir"),
              hashField("tipHash"),
              intField("tipHeight", 0, Integer.MAX_VALUE),
              intField("txindexTipHeight", -1, Integer.MAX_VALUE),
              intField("derivation", 1, 2),
              saltField(),
              fprField("targetFpr"),
              fprField("summaryFpr"),
              headroomField(),
              longField("records", 0, Long.MAX_VALUE),
              summaryEntry(),
              blockEntry(),
              files);
      take("format");
      if ((m.derivationId() == 1) != (m.salt() == 0)) {
        throw bad(
            lineOf.get("salt"),
            "derivation "
                + m.derivationId()
                + " does not fit the salt (derivation 1 "
                + "is unsalted, 2 salted)");
      }
      if (!values.isEmpty()) {
        String unknown = values.keySet().iterator().next();
        throw bad(lineOf.get(unknown), "unknown field '" + unknown + "'");
      }
      return m;
    }

    /**
     * Checks the checksum, then takes the header line of {@code key} alone, as {@link #parse} would
     * have (its field methods then validate it).
     */
    void headerLine(String key) throws FilterStoreException {
      int end = findChecksumLine();
      String prefix = key + "=";
      int line = 1;
      for (int at = 0; at < end; line++) {
        int eol = at;
        while (bytes[eol] != '\n') { // the body ends with one (findChecksumLine)
          eol++;
        }
        String l = new String(bytes, at, eol - at, StandardCharsets.UTF_8);
        if (l.startsWith(prefix)) {
          values.put(key, l.substring(prefix.length()));
          lineOf.put(key, line);
          return;
        }
        if (l.startsWith("file.")) {
          break;
        }
        at = eol + 1;
      }
      throw new FilterStoreException(file, "manifest has no '" + key + "' line before its files");
    }

    /** Checks the last line is {@code crc32c=XXXXXXXX\n} matching the bytes before it. */
    private int findChecksumLine() throws FilterStoreException {
      if (bytes.length == 0) {
        throw new FilterStoreException(file, "manifest is empty (truncated?)");
      }
      if (bytes[bytes.length - 1] != '\n') {
        throw new FilterStoreException(file, "manifest does not end with a line break: truncated");
      }
      int start = bytes.length - 1;
      while (start > 0 && bytes[start - 1] != '\n') {
        start--;
      }
      String last = new String(bytes, start, bytes.length - 1 - start, StandardCharsets.UTF_8);
      if (!last.matches("crc32c=[0-9a-f]{8}")) {
        throw new FilterStoreException(
            file,
            "manifest's last line is not its checksum (crc32c=XXXXXXXX) but '"
                + abbreviate(last)
                + "': truncated or edited");
      }
      int stored = Integer.parseUnsignedInt(last.substring(7), 16);
      int computed = crc32c(bytes, start);
      if (stored != computed) {
        throw new FilterStoreException(
            file,
            "manifest checksum mismatch (stored "
                + crcHex(stored)
                + ", computed "
                + crcHex(computed)
                + "): the manifest is corrupt");
      }
      return start;
    }

    private String take(String key) throws FilterStoreException {
      String v = values.remove(key);
      if (v == null) {
        throw new FilterStoreException(file, "manifest lacks field '" + key + "'");
      }
      return v;
    }

    private long longField(String key, long min, long max) throws FilterStoreException {
      Integer line = lineOf.get(key);
      return parseLong(line, key, take(key), min, max);
    }

    private int intField(String key, int min, int max) throws FilterStoreException {
      return (int) longField(key, min, max);
    }

    private long parseLong(@Nullable Integer line, String field, String text, long min, long max)
        throws FilterStoreException {
      long v;
      try {
        v = Long.parseLong(text);
      } catch (NumberFormatException e) {
        throw bad(line, "field '" + field + "' is not an integer: '" + abbreviate(text) + "'", e);
      }
      if (v < min || v > max) {
        throw bad(line, "field '" + field + "' = " + v + " is outside [" + min + ", " + max + "]");
      }
      return v;
    }

    private byte[] hashField(String key) throws FilterStoreException {
      Integer line = lineOf.get(key);
      String v = take(key);
      if (!HEX_64.matcher(v).matches()) {
        throw bad(line, "field '" + key + "' is not 64 lowercase hex digits");
      }
      return HashKeys.fromDisplayHex(key, v);
    }

    private long saltField() throws FilterStoreException {
      Integer line = lineOf.get("salt");
      String v = take("salt");
      if (!v.matches("[0-9a-f]{16}")) {
        throw bad(line, "field 'salt' is not 16 lowercase hex digits");
      }
      return HEX.fromHexDigitsToLong(v);
    }

    private double fprField(String key) throws FilterStoreException {
      Integer line = lineOf.get(key);
      double v = parseDouble(line, key, take(key));
      if (!(v > 0 && v < 1)) {
        throw bad(line, "field '" + key + "' = " + v + " is not in (0, 1)");
      }
      return v;
    }

    private double headroomField() throws FilterStoreException {
      Integer line = lineOf.get("summaryHeadroom");
      double v = parseDouble(line, "summaryHeadroom", take("summaryHeadroom"));
      if (!(v >= 1 && v <= 16)) {
        throw bad(line, "field 'summaryHeadroom' = " + v + " is not in [1, 16]");
      }
      return v;
    }

    private double parseDouble(@Nullable Integer line, String key, String text)
        throws FilterStoreException {
      try {
        return Double.parseDouble(text);
      } catch (NumberFormatException e) {
        throw bad(line, "field '" + key + "' is not a number: '" + abbreviate(text) + "'", e);
      }
    }

    private Parts subfields(String key, List<String> names) throws FilterStoreException {
      Integer line = lineOf.get(key);
      String v = take(key);
      Map<String, String> out = new LinkedHashMap<>();
      for (String part : v.split(" ")) {
        int c = part.indexOf(':');
        if (c <= 0 || out.putIfAbsent(part.substring(0, c), part.substring(c + 1)) != null) {
          throw bad(
              line,
              "field '" + key + "' has a malformed or repeated part '" + abbreviate(part) + "'");
        }
      }
      if (!out.keySet().equals(new java.util.LinkedHashSet<>(names))) {
        throw bad(
            line,
            "field '" + key + "' must have exactly the parts " + names + ", has " + out.keySet());
      }
      Parts parts = new Parts(out);
      String name = parts.get("name");
      if (!ManifestSyntax.isFileName(name) || name.startsWith(".")) {
        throw bad(
            line, "field '" + key + "' names an invalid filter file '" + abbreviate(name) + "'");
      }
      if (!ManifestSyntax.isCrc(parts.get("crc"))) {
        throw bad(line, "field '" + key + "' has a crc that is not 8 hex digits");
      }
      return parts;
    }

    /** A field's parts by name: {@link #subfields} checked that it has exactly the names asked. */
    private record Parts(Map<String, String> byName) {
      String get(String name) {
        String v = byName.get(name);
        if (v == null) {
          throw new IllegalArgumentException("no part '" + name + "' was asked of subfields");
        }
        return v;
      }
    }

    private SummaryEntry summaryEntry() throws FilterStoreException {
      Integer line = lineOf.get("summary");
      Parts p = subfields("summary", List.of("name", "keys", "capacity", "crc"));
      return new SummaryEntry(
          p.get("name"),
          parseLong(line, "summary.keys", p.get("keys"), 0, Long.MAX_VALUE),
          parseLong(line, "summary.capacity", p.get("capacity"), 0, Long.MAX_VALUE),
          parseCrc(p.get("crc")));
    }

    private BlockHashEntry blockEntry() throws FilterStoreException {
      Integer line = lineOf.get("blocks");
      Parts p = subfields("blocks", List.of("name", "keys", "digest", "crc"));
      if (!HEX_64.matcher(p.get("digest")).matches()) {
        throw bad(line, "field 'blocks' has a digest that is not 64 hex digits");
      }
      return new BlockHashEntry(
          p.get("name"),
          parseLong(line, "blocks.keys", p.get("keys"), 0, Long.MAX_VALUE),
          p.get("digest"),
          parseCrc(p.get("crc")));
    }

    private FileEntry fileEntry(String key) throws FilterStoreException {
      Integer line = lineOf.get(key);
      if (!ManifestSyntax.isFileKey(key)) {
        throw bad(line, "malformed block file field '" + abbreviate(key) + "'");
      }
      int number = (int) parseLong(line, key, key.substring(5), 0, Integer.MAX_VALUE);
      Parts p =
          subfields(
              key, List.of("name", "keys", "capacity", "fBlocks", "fSize", "heightLast", "crc"));
      return new FileEntry(
          number,
          p.get("name"),
          parseLong(line, key + ".keys", p.get("keys"), 0, Long.MAX_VALUE),
          parseLong(line, key + ".capacity", p.get("capacity"), 0, Long.MAX_VALUE),
          parseLong(line, key + ".fBlocks", p.get("fBlocks"), 0, 0xFFFF_FFFFL),
          parseLong(line, key + ".fSize", p.get("fSize"), 0, 0xFFFF_FFFFL),
          parseLong(line, key + ".heightLast", p.get("heightLast"), 0, 0xFFFF_FFFFL),
          parseCrc(p.get("crc")));
    }

    private FilterStoreException bad(@Nullable Integer line, String problem) {
      return bad(line, problem, null);
    }

    private FilterStoreException bad(
        @Nullable Integer line, String problem, @Nullable Throwable cause) {
      return new FilterStoreException(
          file, "manifest line " + (line == null ? "?" : line) + ": " + problem, cause);
    }
  }

  private static int parseCrc(String hex) {
    return Integer.parseUnsignedInt(hex, 16);
  }

  static String crcHex(int crc) {
    return String.format(Locale.ROOT, "%08x", crc);
  }

  private static int crc32c(byte[] b, int length) {
    CRC32C c = new CRC32C();
    c.update(b, 0, length);
    return (int) c.getValue();
  }

  private static String abbreviate(String s) {
    return s.length() <= 60 ? s : s.substring(0, 60) + "...";
  }
}
