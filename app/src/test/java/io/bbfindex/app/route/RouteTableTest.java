package io.bbfindex.app.route;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import java.util.List;
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
}
