@NullMarked
package io.bbfindex.app.eth;

import org.jspecify.annotations.NullMarked;
