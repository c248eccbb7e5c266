@NullMarked
package io.bbfindex.ingest.ownindex;

import org.jspecify.annotations.NullMarked;
