@NullMarked
package io.bbfindex.app.bitcoin;

import org.jspecify.annotations.NullMarked;
