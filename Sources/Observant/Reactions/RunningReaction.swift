/// The name of the reaction whose body is running on this thread, if any: for diagnostics of code
/// that answers a change by queuing more work (a store's report of a reaction that never lets a
/// `send` settle names the reaction).
package var runningReactionName: String? {
  (TransactionContext.current.runningObserver as? ReactionCore)?.name
}
