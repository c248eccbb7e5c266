package io.bbfindex.benchmarks.follow;

import io.bbfindex.follow.FollowConfig;
import io.bbfindex.follow.Follower;
import io.bbfindex.follow.layer.DecodedBlock;
import io.bbfindex.follow.layer.MempoolLayer;
import io.bbfindex.follow.layer.TipAnswer;
import io.bbfindex.follow.layer.TipLayer;
import io.bbfindex.follow.node.RawMempool;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.ingest.encoding.Hash32;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bbf-index bench follow [--quick]}: the costs of following a node.
 *
 * <ul>
 *   <li>connecting a block of 4,000 transactions: parse of the serialized block (what REST hands
 *       over) plus the tip layer's insert (target 20 ms; electrs indexes a mainnet block in ~9 ms);
 *   <li>a mempool resync of 50,000 txids: parse of a {@code getrawmempool false true} answer plus
 *       the mempool layer's replacement, from empty and with 1 % churn (target 1 s);
 *   <li>negative lookups per second (one thread probing the tip and mempool filters, the follower's
 *       part of the negative path) during back-to-back resyncs, against a quiet run (target: within
 *       10 %) and against a run beside a thread that only spins in registers (what two threads cost
 *       each other on these cores). Each resync is the follower's own: the parse of a {@code
 *       getrawmempool false true} answer of 50,000 txids into its reused buffer, then the
 *       replacement (10 % churn); only the HTTP transfer is left out. (Before 2026-11-28 the resync
 *       thread replaced the set from ready-made {@code Hash32} lists, without the parse.) Where the
 *       lookup thread's time went (on a core, parked, GC pauses) is printed per kind of window, and
 *       lookups per second of its own CPU time, which other processes do not move;
 *   <li>with a real node ({@code BITCOIND}, see the README's "Tests" section): block-to-answer and
 *       tx-to-mempool-answer latency, p50/p99, with ZMQ and with polling.
 * </ul>
 *
 * Prints a table and {@code summary: NAME VALUE} lines. Figures from a shared machine vary; the
 * medians are what to compare.
 */
public final class FollowBench {

  /** Where {@link #spin} leaves its result, so that the JIT keeps the loop. */
  private static volatile long spinSink;

  private final boolean quick;
  private final Map<String, String> summary = new LinkedHashMap<>();

  private FollowBench(boolean quick) {
    this.quick = quick;
  }

  /** {@code bench follow}: options parsed strictly by the benchmarks' entry point. */
  @Command(
      name = "follow",
      mixinStandardHelpOptions = true,
      description = {
        "Following a node: block connect, mempool resync, negatives during a resync,"
            + " block-to-answer latency with ZMQ and polling (the latter needs BITCOIND)."
      })
  public static final class Suite implements Callable<Integer> {
    @Option(names = "--quick", description = "fewer rounds (a minute or two)")
    boolean quick;

    @Override
    public Integer call() throws Exception {
      run(quick);
      return 0;
    }
  }

  static void run(boolean quick) throws Exception {
    FollowBench bench = new FollowBench(quick);
    double load =
        java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    System.out.printf(
        Locale.ROOT,
        "bench follow%s: %d cores, load average %.1f (figures from a loaded machine vary)%n",
        bench.quick ? " --quick" : "",
        Runtime.getRuntime().availableProcessors(),
        load);
    bench.summary.put("follow_load_average", fmt(load));
    bench.connectBlocks();
    bench.mempoolResync();
    bench.negativesDuringResync();
    bench.latency();
    bench.summary.forEach((k, v) -> System.out.println("summary: " + k + " " + v));
  }

  private void connectBlocks() {
    int txs = 4_000;
    int warm = quick ? 5 : 20;
    int measured = quick ? 10 : 40;
    SyntheticBlocks gen = new SyntheticBlocks(4000);
    byte[] base = gen.bytes(32);
    List<byte[]> raw = new ArrayList<>();
    byte[] prev = base;
    for (int i = 0; i < warm + measured; i++) {
      byte[] b = gen.block(prev, txs);
      raw.add(b);
      prev = SyntheticBlocks.hash(b);
    }
    TipLayer tip = new TipLayer(Hash32.ofInternal(base), 0);
    double[] parseMs = new double[measured];
    double[] totalMs = new double[measured];
    for (int i = 0; i < raw.size(); i++) {
      long t0 = System.nanoTime();
      DecodedBlock block = DecodedBlock.parse(raw.get(i));
      long t1 = System.nanoTime();
      tip.connect(block, null);
      long t2 = System.nanoTime();
      if (i >= warm) {
        parseMs[i - warm] = (t1 - t0) / 1e6;
        totalMs[i - warm] = (t2 - t0) / 1e6;
      }
    }
    double p50 = percentile(totalMs, 50);
    System.out.printf(
        Locale.ROOT,
        "connect a block of %,d txs (%,d bytes): p50 %.2f ms (parse %.2f ms), max %.2f ms; "
            + "tip layer then holds %,d txids%n",
        txs,
        raw.getFirst().length,
        p50,
        percentile(parseMs, 50),
        percentile(totalMs, 100),
        tip.confirmedCount());
    summary.put("follow_connect_block_4000_tx_ms_p50", fmt(p50));
    summary.put("follow_connect_block_4000_tx_parse_ms_p50", fmt(percentile(parseMs, 50)));
  }

  private void mempoolResync() throws Exception {
    int n = 50_000;
    int reps = quick ? 3 : 7;
    SyntheticBlocks gen = new SyntheticBlocks(50_000);
    List<Hash32> first = hashes(gen, n);
    List<Hash32> churned = new ArrayList<>(first.subList(n / 100, n));
    churned.addAll(hashes(gen, n / 100));
    byte[] firstAnswer = rawMempoolAnswer(first, 1_000);
    byte[] churnedAnswer = rawMempoolAnswer(churned, 2_000);
    double[] fromEmpty = new double[reps];
    double[] withChurn = new double[reps];
    for (int r = 0; r < reps; r++) {
      MempoolLayer m = new MempoolLayer();
      RawMempool raw = new RawMempool();
      long t0 = System.nanoTime();
      resync(m, raw, firstAnswer);
      long t1 = System.nanoTime();
      resync(m, raw, churnedAnswer);
      long t2 = System.nanoTime();
      fromEmpty[r] = (t1 - t0) / 1e6;
      withChurn[r] = (t2 - t1) / 1e6;
    }
    System.out.printf(
        Locale.ROOT,
        "mempool resync of %,d txids (getrawmempool answer of %,d bytes, parsed): "
            + "from empty p50 %.1f ms, with 1 %% churn p50 %.1f ms%n",
        n,
        firstAnswer.length,
        percentile(fromEmpty, 50),
        percentile(withChurn, 50));
    summary.put("follow_mempool_resync_50000_from_empty_ms_p50", fmt(percentile(fromEmpty, 50)));
    summary.put("follow_mempool_resync_50000_churn_1pct_ms_p50", fmt(percentile(withChurn, 50)));
  }

  private void negativesDuringResync() throws Exception {
    SyntheticBlocks gen = new SyntheticBlocks(77);
    List<Hash32> a = hashes(gen, 50_000);
    List<Hash32> b = new ArrayList<>(a.subList(5_000, 50_000));
    b.addAll(hashes(gen, 5_000));
    // A resync is what the follower does with the node's answer: parse the getrawmempool body
    // (its own parser, its reused buffer) and replace the set; only the HTTP transfer is left out.
    byte[][] answers = {rawMempoolAnswer(b, 3_000), rawMempoolAnswer(a, 3_001)};
    MempoolLayer mempool = new MempoolLayer();
    RawMempool raw = new RawMempool();
    resync(mempool, raw, rawMempoolAnswer(a, 2_999));
    TipLayer tip = new TipLayer(Hash32.ofInternal(gen.bytes(32)), 0);
    byte[] probes = gen.bytes(32 * 65_536);
    Duration window = Duration.ofMillis(quick ? 300 : 1_000);
    int rounds = quick ? 5 : 9;
    for (int i = 0; i < 4; i++) {
      negatives(tip, mempool, probes, window); // warm-up: JIT-compiled before the first round
    }
    // Quiet, spin and resync windows alternate, and each is the median of its rounds: a garbage
    // collection or another process's burst then moves one round, not the ratio. The spin window
    // is the machine's own limit: a second thread that only computes in registers, so what it
    // costs the lookups is the sharing of the cores (siblings of one physical core, or other
    // processes), not anything the resync does.
    double[] quietRounds = new double[rounds];
    double[] spinRounds = new double[rounds];
    double[] busyRounds = new double[rounds];
    LookupThreadCosts quietCosts = new LookupThreadCosts();
    LookupThreadCosts spinCosts = new LookupThreadCosts();
    LookupThreadCosts busyCosts = new LookupThreadCosts();
    int[] resyncs = {0};
    long redoneBefore = mempool.redoneProbes();
    for (int r = 0; r < rounds; r++) {
      quietRounds[r] = quietCosts.measure(() -> negatives(tip, mempool, probes, window));
      spinRounds[r] = whileRunning(() -> spin(), spinCosts, tip, mempool, probes, window);
      busyRounds[r] =
          whileRunning(
              () -> {
                resync(mempool, raw, answers[resyncs[0] % 2]);
                resyncs[0]++;
              },
              busyCosts,
              tip,
              mempool,
              probes,
              window);
    }
    printCosts(quietCosts, spinCosts, busyCosts, mempool.redoneProbes() - redoneBefore, resyncs[0]);
    summarizeRatios(rounds, quietRounds, spinRounds, busyRounds, resyncs[0]);
  }

  /** Where the lookup thread's time went in each kind of window; the per-CPU-second ratio. */
  private void printCosts(
      LookupThreadCosts quietCosts,
      LookupThreadCosts spinCosts,
      LookupThreadCosts busyCosts,
      long redone,
      int resyncs) {
    System.out.println("where the lookup thread's time went, summed over the rounds:");
    System.out.println("  quiet:  " + quietCosts);
    System.out.println("  spin:   " + spinCosts);
    System.out.println("  resync: " + busyCosts);
    System.out.printf(
        Locale.ROOT,
        "  mempool filter probes redone after overlapping a write: %,d in %d resyncs%n",
        redone,
        resyncs);
    // Lookups per second of the lookup thread's own CPU time: what the resync costs a lookup
    // while it runs, apart from the core time other processes take (the wall ratio's noise).
    double perCpuRatio = busyCosts.lookupsPerCpuSecond() / quietCosts.lookupsPerCpuSecond();
    System.out.printf(
        Locale.ROOT,
        "  per second on a core: quiet %,.0f, beside the spinning thread %,.0f, during resyncs"
            + " %,.0f (%.0f %% of quiet)%n",
        quietCosts.lookupsPerCpuSecond(),
        spinCosts.lookupsPerCpuSecond(),
        busyCosts.lookupsPerCpuSecond(),
        100 * perCpuRatio);
    summary.put("follow_negatives_per_cpu_s_during_resync_vs_quiet", fmt(perCpuRatio));
  }

  /** The medians of the quiet, spin and resync windows, and their ratios. */
  private void summarizeRatios(
      int rounds, double[] quietRounds, double[] spinRounds, double[] busyRounds, int resyncs) {
    double quiet = percentile(quietRounds, 50);
    double spin = percentile(spinRounds, 50);
    double busy = percentile(busyRounds, 50);
    double ratio = busy / quiet;
    System.out.printf(
        Locale.ROOT,
        "negative lookups (tip + mempool filters, 1 thread; medians of %d alternating windows): "
            + "quiet %,.0f/s, beside a thread spinning in registers %,.0f/s (%.0f %%: the cores'"
            + " own sharing), during %d back-to-back resyncs of 10 %% of 50,000 txids %,.0f/s"
            + " (%.0f %% of quiet, %.0f %% of beside the spinning thread)%n",
        rounds,
        quiet,
        spin,
        100 * spin / quiet,
        resyncs,
        busy,
        100 * ratio,
        100 * busy / spin);
    summary.put("follow_negatives_per_s_quiet", fmt(quiet));
    summary.put("follow_negatives_per_s_beside_cpu_spin", fmt(spin));
    summary.put("follow_negatives_per_s_during_resync", fmt(busy));
    summary.put("follow_negatives_during_resync_vs_quiet", fmt(ratio));
    summary.put("follow_negatives_beside_cpu_spin_vs_quiet", fmt(spin / quiet));
    summary.put("follow_negatives_during_resync_vs_cpu_spin", fmt(busy / spin));
  }

  /** Negative lookups per second while another thread runs {@code work} over and over. */
  private static double whileRunning(
      Runnable work,
      LookupThreadCosts costs,
      TipLayer tip,
      MempoolLayer mempool,
      byte[] probes,
      Duration window)
      throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    Thread other =
        Thread.ofPlatform()
            .name("beside-lookups")
            .start(
                () -> {
                  while (!stop.get()) {
                    work.run();
                  }
                });
    try {
      return costs.measure(() -> negatives(tip, mempool, probes, window));
    } finally {
      stop.set(true);
      other.join();
    }
  }

  /** A few microseconds of arithmetic on locals: no memory traffic, no allocation. */
  private static void spin() {
    long x = spinSink;
    for (int i = 0; i < 10_000; i++) {
      x = x * 6364136223846793005L + 1442695040888963407L;
    }
    spinSink = x;
  }

  private static double negatives(
      TipLayer tip, MempoolLayer mempool, byte[] probes, Duration window) {
    int keys = probes.length / 32;
    long deadline = System.nanoTime() + window.toNanos();
    long done = 0;
    long hits = 0;
    long start = System.nanoTime();
    while (System.nanoTime() < deadline) {
      for (int i = 0; i < 1024; i++) {
        int off = (int) ((done + i) % keys) * 32;
        if (tip.mightContain(probes, off) || mempool.mightContain(probes, off)) {
          hits++;
        }
      }
      done += 1024;
    }
    if (hits > done / 100) {
      throw new IllegalStateException("random probes should be negatives: " + hits + " of " + done);
    }
    return done / ((System.nanoTime() - start) / 1e9);
  }

  private void latency() throws Exception {
    Optional<java.nio.file.Path> bitcoind = RegtestNode.binary(RegtestNode.CURRENT);
    if (bitcoind.isEmpty()) {
      System.out.println(
          "latency: skipped, BITCOIND is not set to a bitcoind (see the README's Tests section)");
      return;
    }
    int blocks = quick ? 10 : 40;
    BlockToHttpLatency.measure(bitcoind.get(), quick ? 50 : 100, 0xB10C, summary);
    try (RegtestNode node = RegtestNode.start(bitcoind.get(), true)) {
      node.mine(101);
      Hash32 genesis = Hash32.ofDisplayHex(node.rpc().call("getblockhash", 0).asText());
      Duration poll = Duration.ofMillis(500);
      try (Follower zmq =
              Follower.start(
                  new FollowConfig(node.rpc(), null, node.blocksDir(), genesis, 0, poll));
          Follower polling =
              Follower.start(
                  new FollowConfig(
                      node.rpc(), FollowConfig.NO_ZMQ, node.blocksDir(), genesis, 0, poll))) {
        zmq.awaitTip(node.bestBlock(), Duration.ofSeconds(60));
        polling.awaitTip(node.bestBlock(), Duration.ofSeconds(60));
        double[][] block = new double[2][blocks];
        double[][] mempool = new double[2][blocks];
        List<Follower> both = List.of(zmq, polling);
        for (int i = 0; i < blocks; i++) {
          Hash32 tx = node.send("bech32", 0.01);
          long t0 = System.nanoTime();
          double[] m =
              until(both, f -> f.lookup(tx).orElse(null) instanceof TipAnswer.InMempool, t0);
          long t1 = System.nanoTime(); // before the mining call: its time is part of the answer's
          Hash32 hash = node.mine(1).getFirst();
          double[] c = until(both, f -> f.status().servedTipHash().equals(hash), t1);
          for (int k = 0; k < 2; k++) {
            mempool[k][i] = m[k];
            block[k][i] = c[k];
          }
        }
        String[] names = {"zmq", "polling"};
        for (int k = 0; k < 2; k++) {
          System.out.printf(
              Locale.ROOT,
              "in-process follower, %-8s block-to-answer (from the mining call) p50 %.1f ms p99"
                  + " %.1f ms; tx-to-mempool-answer p50 %.1f ms p99 %.1f ms (%d blocks)%n",
              names[k],
              percentile(block[k], 50),
              percentile(block[k], 99),
              percentile(mempool[k], 50),
              percentile(mempool[k], 99),
              blocks);
          summary.put("follow_block_to_answer_ms_p50_" + names[k], fmt(percentile(block[k], 50)));
          summary.put("follow_block_to_answer_ms_p99_" + names[k], fmt(percentile(block[k], 99)));
          summary.put(
              "follow_tx_to_mempool_answer_ms_p50_" + names[k], fmt(percentile(mempool[k], 50)));
        }
      }
    }
  }

  /** Milliseconds from {@code t0} until each follower satisfies {@code done} (10 s at most). */
  private static double[] until(
      List<Follower> followers, java.util.function.Predicate<Follower> done, long t0)
      throws InterruptedException {
    double[] out = new double[followers.size()];
    Arrays.fill(out, Double.NaN);
    long deadline = t0 + Duration.ofSeconds(10).toNanos();
    int left = followers.size();
    while (left > 0 && System.nanoTime() < deadline) {
      for (int k = 0; k < followers.size(); k++) {
        if (Double.isNaN(out[k]) && done.test(followers.get(k))) {
          out[k] = (System.nanoTime() - t0) / 1e6;
          left--;
        }
      }
      Thread.sleep(1);
    }
    for (int k = 0; k < out.length; k++) {
      if (Double.isNaN(out[k])) {
        throw new IllegalStateException(
            "follower " + k + " did not answer within 10 s: " + followers.get(k).status());
      }
    }
    return out;
  }

  private static List<Hash32> hashes(SyntheticBlocks gen, int n) {
    List<Hash32> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(Hash32.ofInternal(gen.bytes(32)));
    }
    return out;
  }

  /** The bytes of a {@code getrawmempool false true} JSON-RPC answer. */
  private static byte[] rawMempoolAnswer(List<Hash32> txids, long sequence) {
    StringBuilder sb = new StringBuilder(txids.size() * 67 + 100);
    sb.append("{\"result\":{\"txids\":[");
    for (int i = 0; i < txids.size(); i++) {
      sb.append(i == 0 ? "\"" : ",\"").append(txids.get(i).displayHex()).append('"');
    }
    sb.append("],\"mempool_sequence\":").append(sequence).append("},\"error\":null,\"id\":1}");
    return sb.toString().getBytes(StandardCharsets.US_ASCII);
  }

  /** A resync as the follower does it: the node's answer parsed, then the set replaced. */
  private static void resync(MempoolLayer mempool, RawMempool raw, byte[] answer) {
    try {
      if (!raw.parse(answer)) {
        throw new IllegalStateException("not a getrawmempool answer");
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    mempool.replaceAll(raw.txids(), raw.count());
  }

  /** The {@code p}th percentile (0-100) of {@code values}, nearest rank. */
  public static double percentile(double[] values, double p) {
    double[] s = values.clone();
    Arrays.sort(s);
    int i = (int) Math.ceil(p / 100 * s.length) - 1;
    return s[Math.max(0, Math.min(s.length - 1, i))];
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, "%.3f", v);
  }
}
