package io.bbfindex.ingest.filterbuild;

import java.io.IOException;
import java.nio.file.Path;

/** The build cannot proceed (an unusable output directory, a block index the plan cannot size). */
public class FilterBuildException extends IOException {

  public FilterBuildException(Path path, String problem) {
    super(path + ": " + problem);
  }

  public FilterBuildException(Path path, String problem, Throwable cause) {
    super(path + ": " + problem, cause);
  }
}
