@NullMarked
package io.bbfindex.ingest.archive;

import org.jspecify.annotations.NullMarked;
