package io.bbfindex.app.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.page.PageRoutes;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP side of the page at {@code /} over real HTTP (its behaviour in a browser is the deploy
 * module's PageInChromiumTest): each file's type, the policy that allows only this origin, the
 * revalidation by {@code ETag}, {@code HEAD}; and the page itself neither runs inline script nor
 * writes server data as HTML.
 */
class PageRouteTest {
  @TempDir static Path tmp;
  static FixtureServer server;

  @BeforeAll
  static void start() throws IOException {
    server = FixtureServer.start(tmp);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static HttpResponse<String> send(String method, String path, String... headers)
      throws IOException, InterruptedException {
    return WebConventionsTest.send(server.service(), method, path, headers);
  }

  private static String header(HttpResponse<?> r, String name) {
    return WebConventionsTest.header(r, name);
  }

  @Test
  void eachFileHasItsTypeThePolicyAndRevalidation() throws Exception {
    List<List<String>> files =
        List.of(
            List.of("/", "text/html; charset=utf-8"),
            List.of("/page/page.js", "text/javascript; charset=utf-8"),
            List.of("/page/page.css", "text/css; charset=utf-8"));
    for (List<String> file : files) {
      String path = file.get(0);
      HttpResponse<String> get = send("GET", path);
      assertEquals(200, get.statusCode(), path);
      assertEquals(file.get(1), header(get, "Content-Type"), path);
      assertEquals(PageRoutes.CONTENT_SECURITY_POLICY, header(get, "Content-Security-Policy"));
      assertEquals("nosniff", header(get, "X-Content-Type-Options"), path);
      assertEquals("no-cache", header(get, "Cache-Control"), path);
      String etag = header(get, "ETag");
      assertNotNull(etag, path);
      assertTrue(etag.matches("\"[0-9a-f]{32}\""), etag);

      HttpResponse<String> head = send("HEAD", path);
      assertEquals(200, head.statusCode(), path);
      assertEquals("", head.body(), path);
      assertEquals(header(get, "Content-Length"), header(head, "Content-Length"), path);
      assertEquals(header(get, "Content-Type"), header(head, "Content-Type"), path);

      HttpResponse<String> again = send("GET", path, "If-None-Match", "\"other\", " + etag);
      assertEquals(304, again.statusCode(), path);
      assertEquals("", again.body(), path);
      assertEquals(etag, header(again, "ETag"), path);
      assertEquals(200, send("GET", path, "If-None-Match", "\"other\"").statusCode(), path);
    }
    assertEquals(404, send("GET", "/page/missing.js").statusCode());
  }

  @Test
  void thePageRunsNoInlineScriptAndWritesServerDataAsTextOnly() throws Exception {
    String html = send("GET", "/").body();
    Matcher scripts = Pattern.compile("<script[^>]*>").matcher(html);
    int count = 0;
    while (scripts.find()) {
      count++;
      assertTrue(scripts.group().contains("src=\"/page/page.js\""), scripts.group());
    }
    assertEquals(1, count, "one script, from this origin");
    assertFalse(
        Pattern.compile("\\son[a-z]+\\s*=").matcher(html).find(),
        "no inline event handler attribute");
    assertFalse(html.contains("http://") || html.contains("https://"), "nothing from elsewhere");
    String js = send("GET", "/page/page.js").body();
    for (String sink :
        List.of("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(")) {
      assertFalse(js.contains(sink), "page.js uses " + sink);
    }
    assertTrue(js.contains("textContent"), "server data is written as text");
  }
}
