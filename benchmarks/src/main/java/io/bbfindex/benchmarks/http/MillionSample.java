package io.bbfindex.benchmarks.http;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.bitcoinj.core.Transaction;

/**
 * The txids one run asks for: two disjoint random samples of the generated txids (one for the raw
 * answers, one for the location answers, so neither list warms the other's entries) and random ids
 * that are not on the chain; a fresh sample each run (the seed is printed).
 *
 * @param raw present txids asked as raw transactions
 * @param location present txids asked for their location
 * @param absent ids not on the chain
 */
record MillionSample(List<String> raw, List<String> location, List<String> absent) {

  /**
   * {@code size} txids each from {@code txidFile} (32 bytes a txid) and {@code size} absent ids.
   */
  static MillionSample draw(Path txidFile, int size, long seed) throws IOException {
    byte[] all = Files.readAllBytes(txidFile);
    int n = all.length / 32;
    if (2 * size > n) {
      throw new IOException("a sample of 2 x " + size + " from " + n + " txids");
    }
    Random rnd = new Random(seed);
    int[] order = new int[n];
    Arrays.setAll(order, i -> i);
    for (int i = 0; i < 2 * size; i++) { // a partial Fisher-Yates shuffle
      int j = i + rnd.nextInt(n - i);
      int swap = order[i];
      order[i] = order[j];
      order[j] = swap;
    }
    HexFormat hex = HexFormat.of();
    List<String> raw = new ArrayList<>(size);
    List<String> location = new ArrayList<>(size);
    for (int i = 0; i < 2 * size; i++) {
      (i < size ? raw : location).add(hex.formatHex(all, 32 * order[i], 32 * order[i] + 32));
    }
    Set<String> known = new HashSet<>(raw);
    known.addAll(location);
    List<String> absent = new ArrayList<>(size);
    byte[] id = new byte[32];
    while (absent.size() < size) {
      rnd.nextBytes(id);
      String h = hex.formatHex(id);
      if (!known.contains(h)) { // 2^-256 odds against the chain's ids; the sample's checked
        absent.add(h);
      }
    }
    return new MillionSample(raw, location, absent);
  }

  /**
   * Asks both servers for the first {@code count} ids of each list, one by one: present raw answers
   * exactly 200 from both, byte-identical, parsing to a transaction of the asked txid; absent ids
   * exactly 404 from both; the location answer exactly 200, naming the txid.
   *
   * @return how many answers were checked
   */
  int check(String bbf, String core, int count) throws IOException, InterruptedException {
    try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
      int checked = 0;
      for (String txid : raw.subList(0, Math.min(count, raw.size()))) {
        byte[] ours = get(http, bbf + MillionTxComparison.Kind.RAW.path(txid, false), 200);
        byte[] cores = get(http, core + MillionTxComparison.Kind.RAW.path(txid, true), 200);
        String parsed = Transaction.read(ByteBuffer.wrap(ours)).getTxId().toString();
        if (!Arrays.equals(ours, cores) || !parsed.equals(txid)) {
          throw new IOException("raw answers for " + txid + " differ or hash to " + parsed);
        }
        checked += 2;
      }
      for (String txid : absent.subList(0, Math.min(count, absent.size()))) {
        get(http, bbf + MillionTxComparison.Kind.ABSENT.path(txid, false), 404);
        get(http, core + MillionTxComparison.Kind.ABSENT.path(txid, true), 404);
        checked += 2;
      }
      for (String txid : location.subList(0, Math.min(count, location.size()))) {
        String body =
            new String(
                get(http, bbf + MillionTxComparison.Kind.LOCATION.path(txid, false), 200),
                StandardCharsets.UTF_8);
        if (!body.contains(txid)) {
          throw new IOException("the location answer for " + txid + " does not name it: " + body);
        }
        checked++;
      }
      return checked;
    }
  }

  private static byte[] get(HttpClient http, String url, int status)
      throws IOException, InterruptedException {
    HttpResponse<byte[]> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
            HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() != status) {
      throw new IOException("GET " + url + " answered " + r.statusCode() + ", expected " + status);
    }
    return r.body();
  }
}
