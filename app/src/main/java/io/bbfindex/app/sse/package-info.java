@NullMarked
package io.bbfindex.app.sse;

import org.jspecify.annotations.NullMarked;
