package io.bbfindex.app.bitcoincore;

import io.bbfindex.app.lookup.BlockAnswer;
import io.bbfindex.app.lookup.BlockData;
import io.bbfindex.app.lookup.TxAnswer;
import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.blockfile.BlockFileReader;
import io.bbfindex.ingest.blockfile.BlockFileReader.RawTransaction;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import java.io.IOException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;

/** {@link BlockData} over the node's blk files, through chain-ingest's {@link BlockFileReader}. */
final class CoreBlockData implements BlockData {
  private final NodeIndex index;

  CoreBlockData(NodeIndex index) {
    this.index = Objects.requireNonNull(index, "index");
  }

  @Override
  public RawTransaction rawTransaction(TxAnswer at) throws IOException {
    if (!at.hasLocation()) {
      throw new IllegalArgumentException("the answer has no block location: " + at.status());
    }
    return index.blockFileReader().readRawTransaction(at.file(), at.dataPos(), at.txOffset());
  }

  @Override
  public byte[] rawBlock(BlockAnswer block) throws IOException {
    if (block.file() < 0) {
      throw new CorruptRecordException(
          "block at height " + block.height() + " has no data on disk (pruned or header only)");
    }
    return index.blockFileReader().readBlock(block.file(), block.dataPos());
  }

  @Override
  public Optional<BlockAnswer> activeBlockAt(int height) {
    return index.activeBlockAt(height).map(CoreChainBackend::answer);
  }

  @Override
  public String network() throws IOException {
    BlockFileReader reader = index.blockFileReader();
    byte[] magic = reader.magic();
    if (magic == null) { // learnt from the first record read: read the tip's header once
      reader.readHeader(index.tip().file(), index.tip().dataPos());
      magic = reader.magic();
    }
    return switch (HexFormat.of().formatHex(magic)) {
      case "f9beb4d9" -> "main";
      case "0b110907" -> "test";
      case "1c163f28" -> "testnet4";
      case "0a03cf40" -> "signet";
      default -> "regtest";
    };
  }
}
