@NullMarked
package io.bbfindex.ingest.store;

import org.jspecify.annotations.NullMarked;
