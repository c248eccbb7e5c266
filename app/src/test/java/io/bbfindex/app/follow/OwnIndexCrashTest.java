package io.bbfindex.app.follow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.follow.testnode.TestNodes;
import io.bbfindex.ingest.encoding.Hash32;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 26 point 4: {@code kill -9} of the real {@code serve --txindex own} process (a child JVM)
 * at 5 seeded moments of the own index's builds and merges (the base's first build, a part's
 * shards, a part written but not in the manifest, a merged file written, a merge committed but the
 * replaced files not deleted), each reached exactly through the {@code bbf.ownindex.pauseAt} moment
 * and killed there. After each restart every txid of every block the node has (a reorg among them)
 * answers as the node says, random txids 404, and the restart is not a full rebuild (except after
 * the very first build was killed: there was no index yet); its time is printed.
 */
class OwnIndexCrashTest {

  private static final String[] TYPES = {"legacy", "p2sh-segwit", "bech32", "bech32m"};

  @TempDir Path tmp;

  @Test
  void killMinusNineAtFiveMomentsOfBuildAndMergeThenRestartAnswersExactly() throws Exception {
    Random random = new Random(20261129L);
    List<String> later =
        new ArrayList<>(List.of("shards", "part-written", "merge-written", "merge-committed"));
    Collections.shuffle(later, random);
    List<String> moments = new ArrayList<>();
    moments.add(random.nextBoolean() ? "base-build" : "shards"); // no index yet: the first build
    moments.addAll(later);
    try (RegtestNode node =
        RegtestNode.start(
            TestNodes.binaryOrSkip(RegtestNode.CURRENT), false, List.of("-txindex=0"))) {
      node.mine(110);
      int kills = 0;
      for (int round = 0; kills < moments.size() && round < 40; round++) {
        for (int i = 0; i <= random.nextInt(3); i++) {
          node.send(TYPES[random.nextInt(TYPES.length)], (1 + random.nextInt(20)) / 100.0);
        }
        if (round % 4 == 3) {
          node.rpc().call("invalidateblock", node.bestBlock().displayHex());
          node.mine(2);
        } else {
          node.mine(1 + random.nextInt(2));
        }
        List<Hash32> txids = NodeAnswers.everyTxid(node);
        Map<String, String> expected = NodeAnswers.expected(node, txids);
        node.stop(); // serve without --follow reads a stopped node's files

        String moment = moments.get(kills);
        Child serve = Child.start(node, tmp, moment);
        if (serve.paused()) {
          serve.process.destroyForcibly(); // SIGKILL, inside the moment
          serve.process.waitFor(10, TimeUnit.SECONDS);
          long start = System.nanoTime();
          Child again = Child.start(node, tmp, null);
          try {
            assertFalse(again.paused());
            List<String> wrong =
                NodeAnswers.awaitAgreement(
                    new ApiClient(again.base), expected, Duration.ofSeconds(5));
            assertEquals(List.of(), wrong, "after kill -9 at " + moment);
            randomTxidsAre404(new ApiClient(again.base), random);
            boolean rebuilt = again.said("own txid index built");
            if (kills > 0) {
              assertFalse(
                  rebuilt, "no full rebuild after kill -9 at " + moment + ": " + again.lines);
            }
            System.out.printf(
                "kill -9 at %s (round %d): restart to exact answers in %.0f ms (JVM, filters and"
                    + " own index; %s), %d txids, %s%n",
                moment,
                round,
                (System.nanoTime() - start) / 1e6,
                again.line("own txid index up to date"),
                expected.size(),
                rebuilt ? "first build done again (no index existed)" : "no full rebuild");
          } finally {
            again.process.destroyForcibly().waitFor();
          }
          kills++;
        } else {
          // the moment is not reached in this round's update: served, and checked all the same
          assertEquals(
              List.of(),
              NodeAnswers.awaitAgreement(
                  new ApiClient(serve.base), expected, Duration.ofSeconds(5)));
          serve.process.destroyForcibly().waitFor();
        }
        node.restart(List.of("-txindex=0"));
      }
      assertEquals(moments.size(), kills, "killed at every moment " + moments);

      // a damaged part file is named, dropped and its blocks indexed again: no full rebuild
      node.send("bech32", 0.05);
      node.mine(1);
      Map<String, String> expected = NodeAnswers.expected(node, NodeAnswers.everyTxid(node));
      node.stop();
      Child.start(node, tmp, null).process.destroyForcibly().waitFor(); // adds a part
      Path part = newestPart(tmp.resolve("filters"));
      byte[] bytes = Files.readAllBytes(part);
      bytes[bytes.length - 12] ^= 0x20;
      Files.write(part, bytes);
      Child again = Child.start(node, tmp, null);
      try {
        assertTrue(again.said(part + ": "), "the damaged part is named: " + again.lines);
        assertFalse(again.said("own txid index built"), "no full rebuild: " + again.lines);
        assertEquals(
            List.of(),
            NodeAnswers.awaitAgreement(new ApiClient(again.base), expected, Duration.ofSeconds(5)));
        System.out.println("damaged part: " + again.line(part + ": "));
      } finally {
        again.process.destroyForcibly().waitFor();
      }
    }
  }

  private static Path newestPart(Path filters) throws IOException {
    try (Stream<Path> s = Files.list(filters)) {
      return s.filter(p -> p.getFileName().toString().startsWith("own-txindex.part-"))
          .max(
              Comparator.comparingInt(
                  p -> Integer.parseInt(p.getFileName().toString().replaceAll("\\D", ""))))
          .orElseThrow();
    }
  }

  private static void randomTxidsAre404(ApiClient api, Random random) {
    for (int i = 0; i < 50; i++) {
      byte[] t = new byte[32];
      random.nextBytes(t);
      String id = java.util.HexFormat.of().formatHex(t);
      assertEquals(404, api.get("/v1/tx/" + id).status(), id);
    }
  }

  /** {@code serve --txindex own} in a child JVM, until it listens or pauses at {@code moment}. */
  private record Child(Process process, @Nullable String base, List<String> lines) {

    boolean paused() {
      return base == null;
    }

    boolean said(String text) {
      synchronized (lines) {
        return lines.stream().anyMatch(l -> l.contains(text));
      }
    }

    String line(String text) {
      synchronized (lines) {
        return lines.stream().filter(l -> l.contains(text)).findFirst().orElse("-");
      }
    }

    static Child start(RegtestNode node, Path tmp, @Nullable String moment)
        throws IOException, InterruptedException {
      List<String> cmd =
          ServeChildCommand.of(
              node,
              tmp,
              moment == null ? List.of() : List.of("-Dbbf.ownindex.pauseAt=" + moment),
              List.of("--txindex", "own"));
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      List<String> lines = Collections.synchronizedList(new ArrayList<>());
      LinkedBlockingQueue<String> events = new LinkedBlockingQueue<>();
      Thread.ofVirtual()
          .start(
              () -> {
                try (BufferedReader out =
                    new BufferedReader(
                        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                  for (String line; (line = out.readLine()) != null; ) {
                    lines.add(line);
                    if (line.startsWith("listening on ")) {
                      events.add("L" + line.substring("listening on ".length()).split(" ", 2)[0]);
                    } else if (line.contains("own index paused at")) {
                      events.add("P");
                    } else if (line.contains("own txid index up to date")) {
                      events.add("R");
                    }
                  }
                } catch (IOException e) {
                  // the process was killed
                }
                events.add("X");
              });
      // serve listens while it opens: wait for its own index to be up to date, or paused
      String base = null;
      boolean ready = false;
      while (base == null || !ready) {
        String event = events.poll(90, TimeUnit.SECONDS);
        if (event == null || event.equals("X")) {
          p.destroyForcibly().waitFor();
          throw new IOException("serve neither got ready nor paused: " + lines);
        }
        if (event.equals("P")) {
          return new Child(p, null, lines);
        }
        ready |= event.equals("R");
        base = event.startsWith("L") ? event.substring(1) : base;
      }
      return new Child(p, base, lines);
    }
  }
}
