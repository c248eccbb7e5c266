package io.bbfindex.follow.events;

/**
 * Where a follower reports what it applies. Called on the follower's thread, so an implementation
 * only hands the event on (it must never block nor call the node).
 */
@FunctionalInterface
public interface ChainEventSink {
  /** A sink that drops every event: a follower that nobody listens to yet. */
  ChainEventSink NONE = event -> {};

  void publish(ChainEvent event);
}
