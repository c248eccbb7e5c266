package io.bbfindex.ingest;

import static org.fusesource.leveldbjni.JniDBFactory.factory;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.records.DbKeys;
import io.bbfindex.ingest.testsupport.CoreLevelDbWriter;
import io.bbfindex.ingest.testsupport.Fixtures.Archive;
import io.bbfindex.ingest.testsupport.Fixtures;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.Options;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
        import java.nio.file.StandardOpenOption;
        public class HoldLock {
          public static void main(String[] a) throws Exception {
            try (FileChannel ch = FileChannel.open(Path.of(a[0]), StandardOpenOption.WRITE);
                 var l = ch.lock()) {
              System.out.println("locked");
              System.out.flush();
              System.in.read();
            }
          }
        }
        """);
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process p = new ProcessBuilder(java.toString(), holder.toString(), lock.toString())
        .redirectErrorStream(true).start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      assertEquals("locked", out.readLine());
      DataDirException e = refused(dd);
      assertEquals(lock, e.path());
      assertMentions(e, "running", "Stop bitcoind");
      try (NodeIndex idx = NodeIndex.open(dd, work(), true)) {
        assertEquals(599, idx.tipHeight());
      }
    } finally {
      p.getOutputStream().close();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
    // released: the same directory opens normally
    try (NodeIndex idx = NodeIndex.open(dd, work())) {
      assertEquals(599, idx.tipHeight());
    }
  }
}
