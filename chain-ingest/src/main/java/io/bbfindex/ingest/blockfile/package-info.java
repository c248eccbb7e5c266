@NullMarked
package io.bbfindex.ingest.blockfile;

import org.jspecify.annotations.NullMarked;
