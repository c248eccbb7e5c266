package io.bbfindex.ingest.filterbuild;

import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.ingest.records.TxRecordConsumer;
import io.bbfindex.ingest.txindex.BlockFileSelection;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One scan of the txindex's {@code 't'} rows, inserting each txid straight into the filter of its
 * block file (if that file is built in this scan) and into the summary (if the summary takes that
 * file's keys in this scan), and counting rows per file. This is the ingest hot path: an array
 * lookup by file number and two inserts per record, no allocation, no grouping buffers; the
 * per-file filters are sized before the scan from the block index, so a single pass suffices.
 *
 * <p>Rows naming a file number beyond the plan ({@code >= fileCount}) are counted as strays: they
 * go into the summary when it takes every file (so the summary never has a false negative), but no
 * per-file filter has room for them.
 */
public final class TxFilterPass implements TxRecordConsumer, BlockFileSelection {

  private static final int PROGRESS_EVERY = 1 << 16;

  private final @Nullable BlockedBloomFilter[] byFile;
  private final @Nullable BlockedBloomFilter summary;
  private final boolean @Nullable [] summaryTakes;
  private final boolean summaryTakesAll;
  private final long[] counts;
  private final ProgressListener progress;
  private final String phase;
  private final long expected;
  private long records;
  private long strays;

  /**
   * @param byFile filter to fill per file number (null entries: file not built in this scan)
   * @param summary the summary filter, or null
   * @param summaryTakes per file number, whether its keys go into the summary; null means every row
   *     (strays included)
   * @param expected expected rows, for the progress line (-1 unknown)
   */
  public TxFilterPass(
      @Nullable BlockedBloomFilter[] byFile,
      @Nullable BlockedBloomFilter summary,
      boolean @Nullable [] summaryTakes,
      ProgressListener progress,
      String phase,
      long expected) {
    this.byFile = Objects.requireNonNull(byFile, "byFile");
    this.summary = summary;
    this.summaryTakes = summaryTakes;
    this.summaryTakesAll = summary != null && summaryTakes == null;
    if (summaryTakes != null && summaryTakes.length != byFile.length) {
      throw new IllegalArgumentException(
          "summaryTakes must have one entry per file: "
              + summaryTakes.length
              + " vs "
              + byFile.length);
    }
    this.counts = new long[byFile.length];
    this.progress = Objects.requireNonNull(progress, "progress");
    this.phase = phase;
    this.expected = expected;
  }

  @Override
  public void accept(byte[] txid, int file, long dataPos, long txOffset) {
    accept(txid, 0, file);
  }

  @Override
  public void accept(byte[] txids, int offset, int file, long dataPos, long txOffset) {
    accept(txids, offset, file);
  }

  /** One row whose txid is {@code keys[offset .. offset + 32)} (positions are not needed here). */
  public void accept(byte[] keys, int offset, int file) {
    if (file < counts.length) {
      counts[file]++;
      BlockedBloomFilter f = byFile[file];
      if (f != null) {
        f.add(keys, offset);
      }
      if (summary != null && (summaryTakesAll || (summaryTakes != null && summaryTakes[file]))) {
        summary.add(keys, offset);
      }
    } else {
      strays++;
      if (summaryTakesAll && summary != null) {
        summary.add(keys, offset);
      }
    }
    if ((++records & (PROGRESS_EVERY - 1)) == 0) {
      progress.progress(phase, records, expected);
    }
  }

  /**
   * Whether any filter of this pass takes the txids of {@code file} (a blk-data source skips the
   * others).
   */
  @Override
  public boolean wantsTxids(int file) {
    return file >= counts.length
        || byFile[file] != null
        || summaryTakesAll
        || (summary != null && summaryTakes != null && summaryTakes[file]);
  }

  /** Counts {@code txCount} rows of a file no filter of this pass takes, without their txids. */
  @Override
  public void skipFile(int file, long txCount) {
    counts[file] += txCount;
    records += txCount;
  }

  /** Rows seen. */
  public long records() {
    return records;
  }

  /** Rows per file number. */
  public long count(int file) {
    return counts[file];
  }

  /** Rows whose file number was outside the plan. */
  public long strays() {
    return strays;
  }

  /**
   * Feeds this pass from {@code source} split over {@code decoders} threads (see {@link
   * ParallelTxScan}); this thread inserts. {@code decoders == 0}: one sequential scan.
   */
  public static void scanInParallel(TxRangeSource source, int decoders, TxFilterPass pass) {
    ParallelTxScan.run(source, decoders, pass);
  }

  /** Reports the end of the scan to the listener. */
  public void finish() {
    progress.phaseDone(phase, records);
  }
}
