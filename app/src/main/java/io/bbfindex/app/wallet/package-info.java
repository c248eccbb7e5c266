@NullMarked
package io.bbfindex.app.wallet;

import org.jspecify.annotations.NullMarked;
