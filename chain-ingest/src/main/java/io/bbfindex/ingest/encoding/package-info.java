@NullMarked
package io.bbfindex.ingest.encoding;

import org.jspecify.annotations.NullMarked;
