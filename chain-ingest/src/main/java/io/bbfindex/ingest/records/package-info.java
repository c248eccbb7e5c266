@NullMarked
package io.bbfindex.ingest.records;

import org.jspecify.annotations.NullMarked;
