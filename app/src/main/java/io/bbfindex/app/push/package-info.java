@NullMarked
package io.bbfindex.app.push;

import org.jspecify.annotations.NullMarked;
