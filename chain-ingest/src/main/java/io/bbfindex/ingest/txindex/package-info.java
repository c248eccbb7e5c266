@NullMarked
package io.bbfindex.ingest.txindex;

import org.jspecify.annotations.NullMarked;
