package io.bbfindex.app.http;

import io.bbfindex.app.bitcoin.BlockRoutes;
import io.bbfindex.app.bitcoin.TxRoutes;
import io.bbfindex.app.esplora.EsploraApi;
import io.bbfindex.app.esplora.EsploraRoutes;
import io.bbfindex.app.esplora.NodeRelay;
import io.bbfindex.app.eth.EthApi;
import io.bbfindex.app.eth.EthRoutes;
import io.bbfindex.app.follow.FollowingBackend;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.lookup.IndexStatus;
import io.bbfindex.app.lookup.LookupService;
import io.bbfindex.app.lookup.Readiness;
import io.bbfindex.app.metrics.Metrics;
import io.bbfindex.app.ops.IndexStatusRoutes;
import io.bbfindex.app.ops.OpsRoutes;
import io.bbfindex.app.page.PageRoutes;
import io.bbfindex.app.push.EthPushHub;
import io.bbfindex.app.push.PushHub;
import io.bbfindex.app.push.PushMetrics;
import io.bbfindex.app.push.PushOptions;
import io.bbfindex.app.route.Feature;
import io.bbfindex.app.route.RouteTable;
import io.bbfindex.app.sse.EthSseRoutes;
import io.bbfindex.app.sse.NotFollowingRoutes;
import io.bbfindex.app.sse.SseRoutes;
import io.bbfindex.app.wallet.StoreChecks;
import io.bbfindex.app.wallet.VerifiedReads;
import io.bbfindex.app.wallet.WalletApi;
import io.bbfindex.app.wallet.WalletRoutes;
import io.bbfindex.app.websocket.WebSocketRoutes;
import io.bbfindex.app.websocket.WsLimits;
import io.bbfindex.eth.EthIndex;
import io.bbfindex.ingest.encoding.Hash32;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Which features a server runs, from the sources it has: with Bitcoin data, the tx, block, wallet,
 * status and esplora routes; with an Ethereum source, its routes and its events stream (else a 404
 * naming the missing source under {@code /v1/eth/}); always the page at {@code /}, the health and
 * metrics routes.
 */
final class ServedFeatures {
  private ServedFeatures() {}

  /** What a server serves. */
  record Sources(
      Optional<ChainBackend> bitcoin,
      Optional<EthIndex> eth,
      String esploraPrefix,
      Optional<NodeRelay> node,
      List<String> corsOrigins,
      PushOptions push) {
    Sources(
        Optional<ChainBackend> bitcoin,
        Optional<EthIndex> eth,
        String esploraPrefix,
        Optional<NodeRelay> node) {
      this(bitcoin, eth, esploraPrefix, node, List.of(), PushOptions.DEFAULTS);
    }
  }

  static RouteTable routes(Sources sources, PrometheusMeterRegistry registry, Metrics metrics) {
    List<Feature> features = new ArrayList<>();
    List<Readiness> readiness = new ArrayList<>();
    // One set of push meters for the Bitcoin and Ethereum streams (a gauge registers once), and
    // none on a server without either.
    Optional<PushMetrics> pushMetrics =
        sources.eth().isPresent()
                || sources.bitcoin().filter(b -> b instanceof FollowingBackend).isPresent()
            ? Optional.of(new PushMetrics(registry))
            : Optional.empty();
    sources
        .bitcoin()
        .ifPresent(
            backend -> {
              LookupService lookups = new LookupService(backend, metrics);
              WalletApi wallet =
                  new WalletApi(new VerifiedReads(lookups, new StoreChecks(metrics), registry));
              features.add(new TxRoutes(lookups, metrics));
              features.add(new WalletRoutes(wallet));
              features.add(new BlockRoutes(lookups));
              features.add(new IndexStatusRoutes(backend));
              EsploraApi esplora =
                  new EsploraApi(sources.esploraPrefix(), wallet, sources.node().orElse(null));
              features.add(new EsploraRoutes(esplora));
              if (backend instanceof FollowingBackend following) {
                features.addAll(push(following, esplora, sources, pushMetrics.orElseThrow()));
              } else {
                features.add(new NotFollowingRoutes());
              }
              readiness.add(backend);
            });
    if (sources.eth().isPresent()) {
      EthIndex index = sources.eth().get();
      EthRoutes eth = new EthRoutes(new EthApi(index, registry));
      features.add(eth);
      features.add(
          new EthSseRoutes(
              new EthPushHub(index, pushMetrics.orElseThrow()), sources.push().heartbeat()));
      readiness.add(eth.readiness());
    } else {
      features.add(EthRoutes.absent());
    }
    features.add(new PageRoutes());
    features.add(
        new OpsRoutes(
            registry::scrape, readiness, sources.bitcoin().map(backend -> (IndexStatus) backend)));
    return RouteTable.of(features);
  }

  /** Server-Sent Events and the WebSocket, on a followed node's changes. */
  private static List<Feature> push(
      FollowingBackend backend, EsploraApi esplora, Sources sources, PushMetrics metrics) {
    PushHub hub = new PushHub(backend, backend.events(), metrics);
    PushOptions options = sources.push();
    return List.of(
        new SseRoutes(hub, options.heartbeat()),
        new WebSocketRoutes(
            hub,
            esplora,
            new WebSocketRoutes.ActiveChain() {
              @Override
              public int tipHeight() {
                return backend.tipHeight();
              }

              @Override
              public Optional<Hash32> hashAt(int height) {
                return backend.activeHashAt(height);
              }
            },
            sources.corsOrigins(),
            WsLimits.of(options.maxTracked(), options.heartbeat()),
            HttpInitializer::leaveHttp));
  }
}
