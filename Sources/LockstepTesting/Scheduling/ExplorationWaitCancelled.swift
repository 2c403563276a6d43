/// A test was cancelled — by its time limit, most often — while its exploration waited for a core
/// (``ExplorationSlots``): every core ran an exploration of another test.
struct ExplorationWaitCancelled: Error, CustomStringConvertible {
  let site: CallSite
  let explorationsAhead: Int

  var description: String {
    "The test was cancelled while its exploration, started at \(site), waited for a core behind "
      + "\(explorationsAhead + 1) exploration(s) of other tests: at most one exploration a core runs "
      + "at a time in a process. Nothing ran. \(Self.advice)"
  }

  static let advice =
    "A suite of long explorations wants time limits that cover them, or its explorations run on "
    + "every core in processes of their own (`swift run lockstep-explore --workers N`, or "
    + "LOCKSTEP_SHARD; see Finding races)."
}
