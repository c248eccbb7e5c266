@NullMarked
package io.bbfindex.ingest.chain;

import org.jspecify.annotations.NullMarked;
