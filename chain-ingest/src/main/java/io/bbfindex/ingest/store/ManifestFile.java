package io.bbfindex.ingest.store;

import io.bbfindex.filters.io.AtomicFileWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Where a store keeps its {@link Manifest}: {@value #FILE_NAME} in the store's directory, in {@link
 * ManifestCodec}'s text form, replaced atomically ({@link AtomicFileWriter}) so a crash leaves the
 * old manifest or the new one. A builder writes it last, after every filter file it lists.
 */
public final class ManifestFile {

  /** The manifest's file name inside a store directory. */
  public static final String FILE_NAME = "bbf-manifest.txt";

  /**
   * A manifest of a mainnet store is about 5,600 lines of ~120 bytes; refuse absurd sizes first.
   */
  private static final long MAX_BYTES = 64L << 20;

  private ManifestFile() {}

  /**
   * Replaces {@code dir/}{@value #FILE_NAME} with {@code manifest}, atomically.
   *
   * @throws IOException if writing fails; the old manifest then still stands (see {@link
   *     AtomicFileWriter#write(Path, AtomicFileWriter.Content)})
   */
  public static void write(Path dir, Manifest manifest) throws IOException {
    AtomicFileWriter.write(
        dir.resolve(FILE_NAME), ManifestCodec.render(manifest).getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Reads and validates {@code dir/}{@value #FILE_NAME}.
   *
   * @throws FilterStoreException naming the manifest (and the line) when it is missing, unreadable,
   *     absurdly large, truncated, corrupt or of an unknown version
   */
  public static Manifest read(Path dir) throws FilterStoreException {
    Path file = dir.resolve(FILE_NAME);
    return ManifestCodec.parse(file, bytes(file));
  }

  /**
   * The salt of {@code dir/}{@value #FILE_NAME}, its checksum verified but its per-file lines not
   * parsed ({@link ManifestCodec#salt}).
   *
   * @throws FilterStoreException as {@link #read} when the manifest is missing, unreadable or
   *     corrupt, or has no valid salt line
   */
  public static long readSalt(Path dir) throws FilterStoreException {
    Path file = dir.resolve(FILE_NAME);
    return ManifestCodec.salt(file, bytes(file));
  }

  /**
   * The target FPR of {@code dir/}{@value #FILE_NAME}, read as {@link #readSalt} reads the salt.
   *
   * @throws FilterStoreException as {@link #readSalt}
   */
  public static double readTargetFpr(Path dir) throws FilterStoreException {
    Path file = dir.resolve(FILE_NAME);
    return ManifestCodec.targetFpr(file, bytes(file));
  }

  private static byte[] bytes(Path file) throws FilterStoreException {
    byte[] bytes;
    try {
      long size = Files.size(file);
      if (size > MAX_BYTES) {
        throw new FilterStoreException(
            file,
            "manifest is "
                + size
                + " bytes, more than any store needs ("
                + MAX_BYTES
                + "); not a bbf-index manifest");
      }
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new FilterStoreException(
          file,
          "no manifest: this directory holds no filter store "
              + "(build one with the ingest command)",
          e);
    } catch (FilterStoreException e) {
      throw e;
    } catch (IOException e) {
      throw new FilterStoreException(file, "manifest cannot be read: " + e, e);
    }
    return bytes;
  }
}
