@NullMarked
package io.bbfindex.app.ops;

import org.jspecify.annotations.NullMarked;
