package io.bbfindex.app.route;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** How the table resolves paths: specificity, parameters, 404, 405 with {@code Allow}. */
class RouteTableTest {
  private static final RouteHandler NOTHING = request -> null;

  private static Feature feature(List<Route> routes, List<Namespace> namespaces) {
    return new Feature() {
      @Override
      public List<Route> routes() {
        return routes;
      }

      @Override
      public OpenApiFragment openApi() {
        return OpenApiFragment.empty();
      }

      @Override
      public List<Namespace> namespaces() {
        return namespaces;
      }
    };
  }

  private static final Route TX = Route.get("/v1/tx/{txid+}", "tx", NOTHING);
  private static final Route BATCH = Route.post("/v1/tx/lookup", "tx_batch", NOTHING);
  private static final Route HEX = Route.get("/v1/tx/{txid}/hex", "tx_hex", NOTHING);
  private static final Route TXID = Route.get("/e/block/{hash}/txid/{index}", "e", NOTHING);
  private static final Namespace E = new Namespace("/e/", "e", refusal -> (FullHttpResponse) null);

  private static final RouteTable TABLE =
      RouteTable.of(List.of(feature(List.of(TX, BATCH, HEX, TXID), List.of(E))));

  @Test
  void theMostSpecificPatternOwnsThePath() {
    RouteTable.Found batch =
        assertInstanceOf(RouteTable.Found.class, TABLE.resolve(HttpMethod.POST, "/v1/tx/lookup"));
    assertEquals(BATCH, batch.route());
    RouteTable.Found hex =
        assertInstanceOf(RouteTable.Found.class, TABLE.resolve(HttpMethod.GET, "/v1/tx/ab/hex"));
    assertEquals(HEX, hex.route());
    assertEquals(List.of("ab"), hex.params());
    RouteTable.Found rest =
        assertInstanceOf(RouteTable.Found.class, TABLE.resolve(HttpMethod.GET, "/v1/tx/a/b"));
    assertEquals(TX, rest.route());
    assertEquals(List.of("a/b"), rest.params(), "a {txid+} takes the rest of the path");
    RouteTable.Found empty =
        assertInstanceOf(RouteTable.Found.class, TABLE.resolve(HttpMethod.GET, "/v1/tx/"));
    assertEquals(List.of(""), empty.params(), "an empty id reaches the route, which says why");
    RouteTable.Found two =
        assertInstanceOf(
            RouteTable.Found.class, TABLE.resolve(HttpMethod.GET, "/e/block/h/txid/7"));
    assertEquals(List.of("h", "7"), two.params());
  }

  @Test
  void anotherMethodIs405WithAllowListingHeadBesideGet() {
    RouteTable.Refused get =
        assertInstanceOf(RouteTable.Refused.class, TABLE.resolve(HttpMethod.GET, "/v1/tx/lookup"));
    assertEquals(405, get.refusal().status().code());
    assertEquals("POST", get.allow());
    assertEquals("tx_batch", get.tag());
    RouteTable.Refused post =
        assertInstanceOf(RouteTable.Refused.class, TABLE.resolve(HttpMethod.POST, "/v1/tx/ab"));
    assertEquals("GET, HEAD", post.allow());
    assertEquals("this route accepts GET only", post.refusal().detail());
  }

  @Test
  void aPathNoPatternMatchesIs404InItsNamespacesWords() {
    RouteTable.Refused none =
        assertInstanceOf(RouteTable.Refused.class, TABLE.resolve(HttpMethod.GET, "/v1/txs"));
    assertEquals(404, none.refusal().status().code());
    assertNull(none.namespace());
    assertEquals(RouteTable.OTHER_TAG, none.tag());
    RouteTable.Refused inE =
        assertInstanceOf(
            RouteTable.Refused.class, TABLE.resolve(HttpMethod.GET, "/e/block/h/txid"));
    assertEquals(E, inE.namespace());
    assertEquals("e", inE.tag());
  }

  @Test
  void twoRoutesForOneMethodAndPatternAreRefused() {
    assertThrows(
        IllegalArgumentException.class,
        () -> RouteTable.of(List.of(feature(List.of(TX, TX), List.of()))));
  }

  @Test
  void theTableFindsWhatTryingEveryPatternInOrderFinds() {
    // the table tries only the patterns of a path's segment count, then those taking the rest:
    // over random paths it must pick the route (and values) that trying every pattern, most
    // specific first, picks
    List<Route> routes =
        List.of(
            TX,
            BATCH,
            HEX,
            TXID,
            Route.get("/v1/tx/{txid}/raw", "raw", NOTHING),
            Route.get("/v1/block/{hash}", "block", NOTHING),
            Route.get("/a/{x}", "a1", NOTHING),
            Route.get("/a/{x}/{y}", "a2", NOTHING),
            Route.get("/a/b/{y}", "ab", NOTHING),
            Route.get("/a/{x+}", "arest", NOTHING),
            Route.get("/{x}/c", "c", NOTHING));
    RouteTable table = RouteTable.of(List.of(feature(routes, List.of(E))));
    List<PathPattern> ordered =
        routes.stream()
            .map(r -> PathPattern.of(r.pattern()))
            .filter(p -> p.parameters() > 0)
            .sorted(
                Comparator.comparing(PathPattern::takesRest)
                    .thenComparingInt(PathPattern::parameters))
            .toList();
    String[] words = {"v1", "tx", "a", "b", "c", "e", "block", "raw", "hex", "lookup", "ab", ""};
    Random rnd = new Random(29);
    int found = 0;
    for (int n = 0; n < 20_000; n++) {
      StringBuilder path = new StringBuilder();
      for (int s = rnd.nextInt(6); s >= 0; s--) {
        path.append('/').append(words[rnd.nextInt(words.length)]);
      }
      String p = path.toString();
      PathPattern expected = null;
      List<String> expectedValues = null;
      for (PathPattern candidate : ordered) {
        expectedValues = candidate.match(p);
        if (expectedValues != null) {
          expected = candidate;
          break;
        }
      }
      if (routes.stream().anyMatch(r -> r.pattern().equals(p))) {
        continue; // a literal route's own path: the hash lookup's
      }
      RouteTable.Resolution r = table.resolve(HttpMethod.GET, p);
      if (expected == null) {
        assertInstanceOf(RouteTable.Refused.class, r, p);
        continue;
      }
      RouteTable.Found f = assertInstanceOf(RouteTable.Found.class, r, p);
      assertEquals(expected.text(), f.route().pattern(), p);
      assertEquals(expectedValues, f.params(), p);
      found++;
    }
    assertTrue(found > 1_000, "random paths reached templated routes only " + found + " times");
  }
}
