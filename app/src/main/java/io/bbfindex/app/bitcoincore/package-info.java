@NullMarked
package io.bbfindex.app.bitcoincore;

import org.jspecify.annotations.NullMarked;
