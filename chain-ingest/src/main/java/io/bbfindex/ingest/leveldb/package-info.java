@NullMarked
package io.bbfindex.ingest.leveldb;

import org.jspecify.annotations.NullMarked;
