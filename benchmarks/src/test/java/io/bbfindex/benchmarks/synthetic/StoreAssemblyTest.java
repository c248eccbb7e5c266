package io.bbfindex.benchmarks.synthetic;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.filters.io.FilterFile;
import io.bbfindex.filters.io.LoadedFilter;
import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.filterbuild.BuildOptions;
import io.bbfindex.ingest.filterbuild.FilterBuilder;
import io.bbfindex.ingest.filterbuild.ProgressListener;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.BlockStatus;
import io.bbfindex.ingest.store.Manifest;
import io.bbfindex.ingest.store.Manifest.FileEntry;
import io.bbfindex.ingest.store.Manifest.SummaryEntry;
import io.bbfindex.ingest.store.ManifestFile;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link StoreAssembly}, the benchmarks' store writer, writes the store {@link FilterBuilder}
 * writes for the same txids: a real fixture is built by the builder (with per-file filters), and
 * the same txids, block file by block file, by the assembly.
 *
 * <p>"The same store" means: the same file names; the same manifest entries (keys, capacity, block
 * counts and heights per file; keys and capacity of the summary; derivation, salt, FPR targets,
 * headroom, records); and bit-identical filters (geometry, salt and every bit), so every lookup
 * answers the same in both, members and non-members alike. Not compared, because the assembly fills
 * them by design for synthetic data that has no real block files: creation times, the manifest's
 * tip hash and datadir line, each header's block-file size and last block hash (and so the header
 * CRCs), and the block-hash filter (synthetic block hashes; its sizing rule is the file filters').
 */
class StoreAssemblyTest {

  @TempDir Path tmp;

  @Test
  void writesTheStoreTheBuilderWritesForAMultiFileRegtestChain() throws IOException {
    assertSameStore(Archive.REGTEST_MULTIFILE);
  }

  @Test
  void writesTheStoreTheBuilderWritesForMainnetBlocks() throws IOException {
    assertSameStore(Archive.MAINNET_LDB);
  }

  private void assertSameStore(Archive archive) throws IOException {
    BuildOptions opts = BuildOptions.defaults().withFileFilters(true);
    Path datadir = Fixtures.extract(archive, tmp.resolve("data"));
    Path built = tmp.resolve("built");
    Path assembled = tmp.resolve("assembled");
    try (NodeIndex index = NodeIndex.open(datadir, tmp.resolve("work"))) {
      FilterBuilder.build(index, built, opts, ProgressListener.NONE);
      assemble(index, assembled, opts);
    }
    Manifest b = ManifestFile.read(built);
    Manifest a = ManifestFile.read(assembled);
    assertEquals(comparable(b), comparable(a), "manifests");
    for (FileEntry e : b.files()) {
      assertSameFilter(built.resolve(e.name()), assembled.resolve(e.name()));
    }
    assertSameFilter(built.resolve(b.summary().name()), assembled.resolve(a.summary().name()));
  }

  /** The txindex rows of each block file and the genesis coinbase, through StoreAssembly. */
  private static void assemble(NodeIndex index, Path dir, BuildOptions opts) throws IOException {
    Map<Integer, List<byte[]>> rows = new TreeMap<>();
    index.forEachTx(
        (txid, file, dataPos, txOffset) ->
            rows.computeIfAbsent(file, f -> new ArrayList<>()).add(txid.clone()));
    Map<Integer, Long> nTx = new TreeMap<>();
    for (BlockInfo block : index.blocks()) {
      if (BlockStatus.hasData(block.status()) && block.file() >= 0) {
        nTx.merge(block.file(), Integer.toUnsignedLong(block.txCount()), Long::sum);
      }
    }
    for (int file : index.blockFiles().keySet()) {
      nTx.putIfAbsent(file, 0L); // a file without blocks with data still has its entry
    }
    Files.createDirectories(dir);
    List<FileEntry> files = new ArrayList<>();
    long capacity = nTx.values().stream().mapToLong(Long::longValue).sum();
    long records = 0;
    try (BlockedBloomFilter summary = StoreAssembly.newSummary(capacity, opts)) {
      for (Map.Entry<Integer, Long> file : nTx.entrySet()) {
        List<byte[]> txids = rows.getOrDefault(file.getKey(), List.of());
        records += txids.size();
        // the builder sizes a file's filter for the nTx of its blocks (the block index's count)
        try (BlockedBloomFilter f = StoreAssembly.newFileFilter(file.getValue(), opts)) {
          for (byte[] txid : txids) {
            f.add(txid, 0);
            summary.add(txid, 0);
          }
          var info = index.blockFiles().get(file.getKey());
          files.add(
              StoreAssembly.writeFileFilter(
                  dir, file.getKey(), f, txids.size(), info.blocks(), info.heightLast(), opts));
        }
      }
      byte[] genesisCoinbase =
          Arrays.copyOfRange(index.activeBlockAt(0).orElseThrow().header(), 36, 68);
      summary.add(genesisCoinbase, 0);
      SummaryEntry s = StoreAssembly.writeSummary(dir, summary, records + 1, nTx.size(), opts);
      StoreAssembly.writeManifest(
          dir,
          "assembled",
          opts,
          records,
          index.tipHeight() + 1L,
          s,
          StoreAssembly.writeBlockHashes(dir, new SyntheticKeys(1), 1, opts),
          files);
    }
  }

  /** What both writers must agree on (see the class comment for what is left out). */
  private static List<Object> comparable(Manifest m) {
    List<Object> fields = new ArrayList<>();
    fields.addAll(
        List.of(
            m.filterFormatVersion(),
            m.tipHeight(),
            m.derivationId(),
            m.salt(),
            m.targetFpr(),
            m.summaryFpr(),
            m.summaryHeadroom(),
            m.records(),
            m.summary().name(),
            m.summary().keys(),
            m.summary().capacity(),
            m.blocks().name()));
    for (FileEntry e : m.files()) {
      fields.add(List.of(e.file(), e.name(), e.keys(), e.capacity(), e.fBlocks(), e.heightLast()));
    }
    return fields;
  }

  private static void assertSameFilter(Path built, Path assembled) throws IOException {
    try (LoadedFilter b = FilterFile.load(built);
        LoadedFilter a = FilterFile.load(assembled)) {
      assertEquals(b.filter().geometry(), a.filter().geometry(), built.getFileName() + " geometry");
      assertEquals(b.filter().salt(), a.filter().salt(), built.getFileName() + " salt");
      MemorySegment bits = b.filter().bits();
      assertEquals(-1, bits.mismatch(a.filter().bits()), built.getFileName() + ": bits differ");
    }
  }
}
