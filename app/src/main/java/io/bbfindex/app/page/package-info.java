/**
 * The page for people at {@code GET /}: one static HTML page with its script and style sheet,
 * shipped in the jar (no front-end build step, nothing from another origin), that looks a txid up
 * through the JSON routes and follows it over Server-Sent Events.
 */
@NullMarked
package io.bbfindex.app.page;

import org.jspecify.annotations.NullMarked;
