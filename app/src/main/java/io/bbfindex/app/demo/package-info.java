@NullMarked
package io.bbfindex.app.demo;

import org.jspecify.annotations.NullMarked;
