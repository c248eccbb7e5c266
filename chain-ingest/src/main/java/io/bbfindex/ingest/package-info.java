@NullMarked
package io.bbfindex.ingest;

import org.jspecify.annotations.NullMarked;
