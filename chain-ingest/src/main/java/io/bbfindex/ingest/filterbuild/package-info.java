@NullMarked
package io.bbfindex.ingest.filterbuild;

import org.jspecify.annotations.NullMarked;
