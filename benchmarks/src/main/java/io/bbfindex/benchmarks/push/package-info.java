/** {@code bbf-index bench push}: push notifications (WebSocket and SSE) at scale. */
@NullMarked
package io.bbfindex.benchmarks.push;

import org.jspecify.annotations.NullMarked;
