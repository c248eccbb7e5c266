package io.bbfindex.app.metrics;

import io.bbfindex.app.lookup.FilterSummary;
import io.bbfindex.app.lookup.IndexStatus;
import io.bbfindex.app.lookup.LookupCounter;
import io.bbfindex.app.lookup.LookupKind;
import io.bbfindex.app.lookup.LookupOutcome;
import io.bbfindex.app.lookup.OpeningBackend;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.netty4.NettyAllocatorMetrics;
import io.micrometer.core.instrument.binder.netty4.NettyEventExecutorMetrics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.util.concurrent.EventExecutor;
import io.prometheus.metrics.core.metrics.Info;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every meter of the service, with the names as constants: dashboards select on these names and
 * tags, so they only ever change together with {@code app/METRICS.md}.
 *
 * <p>Names are Micrometer's dotted form; the Prometheus registry renders {@code bbf.lookups} as
 * {@code bbf_lookups_total}, {@code bbf.http.request} as {@code bbf_http_request_seconds_*} and so
 * on (the exported names are listed next to each constant). The registry is injected, never
 * Micrometer's global one, so tests and several servers in one JVM do not share counters.
 *
 * <p>Hot-path meters (lookup counters, route timers) are created once here and handed out from
 * arrays/maps, so a request never goes through Micrometer's meter lookup.
 */
public final class Metrics implements LookupCounter {
  /** Counter {@code bbf_lookups_total{kind, outcome}}. */
  public static final String LOOKUPS = "bbf.lookups";

  /**
   * Counter {@code bbf_store_inconsistent_total}: reads whose stored bytes did not hash to what
   * commits to them, each answered 500 {@code store_inconsistent}.
   */
  public static final String STORE_INCONSISTENT = "bbf.store.inconsistent";

  /** Function counter {@code bbf_leveldb_reads_total}: LevelDB gets done by the backend. */
  public static final String LEVELDB_READS = "bbf.leveldb.reads";

  /** Timer histogram {@code bbf_http_request_seconds{route}} (buckets, count, sum, max). */
  public static final String HTTP_REQUEST = "bbf.http.request";

  /**
   * Counter {@code bbf_http_server_errors_total{route}}: responses with a 5xx status (503 while the
   * store is not ready, 500 on a failure), for the error-rate and store-unavailable alerts.
   */
  public static final String HTTP_SERVER_ERRORS = "bbf.http.server.errors";

  /** Gauge {@code bbf_filter_fill_ratio{filter}}: share of bits set. */
  public static final String FILTER_FILL_RATIO = "bbf.filter.fill.ratio";

  /** Gauge {@code bbf_filter_modelled_fpr{filter}}: the paper's model at the filter's load. */
  public static final String FILTER_MODELLED_FPR = "bbf.filter.modelled.fpr";

  /** Gauge {@code bbf_filter_keys{filter}}: keys in the filter. */
  public static final String FILTER_KEYS = "bbf.filter.keys";

  /** Gauge {@code bbf_filter_observed_fpr{kind}}: false positives / filter "maybe"s since start. */
  public static final String FILTER_OBSERVED_FPR = "bbf.filter.observed.fpr";

  /** Gauge {@code bbf_index_tip_height}: height of the active chain's tip the index serves. */
  public static final String INDEX_TIP_HEIGHT = "bbf.index.tip.height";

  /** Gauge {@code bbf_index_txindex_lag_blocks}: blocks the txindex trails the active tip by. */
  public static final String TXINDEX_LAG = "bbf.index.txindex.lag.blocks";

  /** Gauge {@code bbf_index_txindex_layout{layout,location}}: 1 for the node's txindex layout. */
  public static final String TXINDEX_LAYOUT = "bbf.index.txindex.layout";

  public static final String TXINDEX_SOURCE = "bbf.index.txindex.source";
  public static final String TAG_LAYOUT = "layout";
  public static final String TAG_SOURCE = "source";
  public static final String TAG_LOCATION = "location";

  /**
   * {@code bbf_build_info{version} 1}. Prometheus reserves the {@code _info} suffix for its Info
   * type, which Micrometer cannot create, so on a Prometheus registry this is a native Info metric;
   * elsewhere it is a gauge named {@code bbf.build} with the same tag.
   */
  public static final String BUILD_INFO = "bbf_build";

  /** Timer {@code bbf_http_batch_phase_seconds{form, phase}} of the batch route. */
  public static final String HTTP_BATCH_PHASE = "bbf.http.batch.phase";

  public static final String TAG_FORM = "form";
  public static final String TAG_PHASE = "phase";
  public static final String TAG_KIND = "kind";
  public static final String TAG_OUTCOME = "outcome";
  public static final String TAG_ROUTE = "route";
  public static final String TAG_FILTER = "filter";
  public static final String TAG_VERSION = "version";

  private final MeterRegistry registry;
  private final Map<LookupKind, Counter[]> lookups = new EnumMap<>(LookupKind.class);
  private final Map<String, Timer> routeTimers = new ConcurrentHashMap<>();
  private final Counter storeInconsistent;

  /**
   * Registers the process-level meters (lookups, build info, JVM and Netty allocator).
   *
   * @param version the build's version, for {@code bbf_build_info}
   */
  public Metrics(MeterRegistry registry, String version) {
    this.registry = Objects.requireNonNull(registry, "registry");
    for (LookupKind kind : LookupKind.values()) {
      Counter[] byOutcome = new Counter[LookupOutcome.values().length];
      for (LookupOutcome outcome : LookupOutcome.values()) {
        byOutcome[outcome.ordinal()] =
            Counter.builder(LOOKUPS)
                .description("Lookups by what was looked up and how the answer was reached")
                .tag(TAG_KIND, kind.tag())
                .tag(TAG_OUTCOME, outcome.tag())
                .register(registry);
      }
      lookups.put(kind, byOutcome);
      Counter[] c = byOutcome;
      Gauge.builder(FILTER_OBSERVED_FPR, () -> observedFpr(c))
          .description(
              "Filter 'maybe' answers that the index refuted, over all 'maybe' answers, since"
                  + " start")
          .tag(TAG_KIND, kind.tag())
          .strongReference(true)
          .register(registry);
    }
    storeInconsistent =
        Counter.builder(STORE_INCONSISTENT)
            .description(
                "Reads whose stored bytes did not hash to what commits to them (served as 500)")
            .register(registry);
    registerBuildInfo(registry, Objects.requireNonNull(version, "version"));
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    if (ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider provider) {
      new NettyAllocatorMetrics(provider).bindTo(registry);
    }
  }

  public MeterRegistry registry() {
    return registry;
  }

  /**
   * Registers the meters that read the backend: LevelDB reads, tip height and fill-ratio,
   * modelled-FPR and key-count gauges of the filters that answer lookups. Call once per backend.
   */
  public void bindBackend(IndexStatus backend) {
    FunctionCounter.builder(LEVELDB_READS, backend, IndexStatus::leveldbReads)
        .description(
            "txindex reads made by lookups (a summary 'no' makes none; one the txindex tables'"
                + " Bloom filter blocks refute counts, without a LevelDB call)")
        .register(registry);
    if (backend instanceof OpeningBackend opening) {
      // the server started while the store is read: what describes it waits for it
      opening.whenOpened(this::bindDescription);
    } else {
      bindDescription(backend);
    }
  }

  /**
   * The meters that describe what the backend serves: its tip, its txindex and its lookup filters.
   */
  private void bindDescription(IndexStatus backend) {
    backend
        .gauges()
        .forEach(
            (name, value) ->
                Gauge.builder(name, value, java.util.function.DoubleSupplier::getAsDouble)
                    .strongReference(true)
                    .register(registry));
    Gauge.builder(INDEX_TIP_HEIGHT, backend, IndexStatus::tipHeight)
        .description("Height of the active chain tip that the index serves")
        .register(registry);
    Gauge.builder(TXINDEX_LAG, backend, IndexStatus::txindexLagBlocks)
        .description("Blocks the txindex trails the active chain tip by (NaN: unknown)")
        .register(registry);
    Gauge.builder(TXINDEX_LAYOUT, () -> 1)
        .description("1, tagged with the txindex's layout (legacy, hashed, mixed) and location")
        .tag(TAG_LAYOUT, backend.txindexLayout())
        .tag(TAG_LOCATION, backend.txindexLocation())
        .strongReference(true)
        .register(registry);
    Gauge.builder(TXINDEX_SOURCE, () -> 1)
        .description("1, tagged with what answers txid lookups: node (its txindex) or own")
        .tag(TAG_SOURCE, backend.txindexSource())
        .strongReference(true)
        .register(registry);
    // Gauges for the filters that answer lookups (blockFile -1: the summary and the block-hash
    // filter). Per-file filters are the unit of building, about 5,600 on mainnet: three series
    // each would swamp a dashboard, and GET /v1/filters lists them.
    for (FilterSummary f : backend.lookupFilters()) {
      Gauge.builder(FILTER_FILL_RATIO, f, FilterSummary::fillRatio)
          .description("Share of the filter's bits that are set")
          .tag(TAG_FILTER, f.name())
          .strongReference(true)
          .register(registry);
      Gauge.builder(FILTER_MODELLED_FPR, f, FilterSummary::modelledFpr)
          .description("False-positive rate the blocked Bloom model predicts at the filter's load")
          .tag(TAG_FILTER, f.name())
          .strongReference(true)
          .register(registry);
      Gauge.builder(FILTER_KEYS, f, FilterSummary::keys)
          .description("Keys inserted into the filter")
          .tag(TAG_FILTER, f.name())
          .strongReference(true)
          .register(registry);
    }
  }

  /** Pending tasks and workers of the server's event loops ({@code netty_eventexecutor_*}). */
  public void bindEventLoops(Iterable<EventExecutor> loops) {
    new NettyEventExecutorMetrics(loops).bindTo(registry);
  }

  @Override
  public void countLookup(LookupKind kind, LookupOutcome outcome) {
    counter(kind, outcome).increment();
  }

  @Override
  public void countLookups(LookupKind kind, LookupOutcome outcome, long n) {
    if (n > 0) {
      counter(kind, outcome).increment(n);
    }
  }

  @Override
  public void countStoreInconsistent() {
    storeInconsistent.increment();
  }

  /** Lookups counted so far with this kind and outcome (for tests and the CLI summary). */
  public double lookups(LookupKind kind, LookupOutcome outcome) {
    return counter(kind, outcome).count();
  }

  /** The counter of a kind and outcome: the constructor registers one for every pair. */
  private Counter counter(LookupKind kind, LookupOutcome outcome) {
    Counter[] byOutcome = lookups.get(kind);
    if (byOutcome == null) {
      throw new IllegalStateException("no lookup counters for " + kind);
    }
    return byOutcome[outcome.ordinal()];
  }

  /**
   * The latency histogram of one route. Buckets span 5 µs (a filter "no" answered from memory) to
   * 10 s, so both the in-memory path and a cold batch land inside the range.
   */
  public Timer requestTimer(String route) {
    return routeTimers.computeIfAbsent(
        route,
        r ->
            Timer.builder(HTTP_REQUEST)
                .description(
                    "HTTP request latency from the decoded request to the written response")
                .tag(TAG_ROUTE, r)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(5_000))
                .maximumExpectedValue(Duration.ofSeconds(10))
                .register(registry));
  }

  /**
   * The time of one phase ({@code parse}, {@code probe}, {@code read}, {@code write}) of {@code
   * POST /v1/tx/lookup} in one form ({@code json}, {@code binary}): count, sum and max only, so the
   * split of a batch's time costs four clock reads and no histogram.
   */
  public Timer batchPhaseTimer(String form, String phase) {
    return Timer.builder(HTTP_BATCH_PHASE)
        .description("Time of one phase of POST /v1/tx/lookup, by body form")
        .tag(TAG_FORM, form)
        .tag(TAG_PHASE, phase)
        .register(registry);
  }

  /** The count of 5xx responses of one route (registered up front, so every route has a series). */
  public Counter serverErrors(String route) {
    return Counter.builder(HTTP_SERVER_ERRORS)
        .description("HTTP responses with a 5xx status")
        .tag(TAG_ROUTE, route)
        .register(registry);
  }

  private static void registerBuildInfo(MeterRegistry registry, String version) {
    if (registry instanceof PrometheusMeterRegistry prometheus) {
      Info.builder()
          .name(BUILD_INFO)
          .help("Build information; the value is always 1")
          .labelNames(TAG_VERSION)
          .register(prometheus.getPrometheusRegistry())
          .setLabelValues(version);
    } else {
      Gauge.builder("bbf.build", () -> 1)
          .description("Build information; the value is always 1")
          .tag(TAG_VERSION, version)
          .strongReference(true)
          .register(registry);
    }
  }

  private static double observedFpr(Counter[] byOutcome) {
    double falsePositives = byOutcome[LookupOutcome.FILTER_FALSE_POSITIVE.ordinal()].count();
    double maybes =
        falsePositives
            + byOutcome[LookupOutcome.CONFIRMED.ordinal()].count()
            + byOutcome[LookupOutcome.STALE.ordinal()].count();
    return maybes == 0 ? 0.0 : falsePositives / maybes;
  }
}
