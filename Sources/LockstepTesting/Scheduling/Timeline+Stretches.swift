// A timeline's steps folded into stretches of one task at one virtual time: the lines of its
// text and the boxes of its picture.

extension Timeline {
  /// Consecutive steps of one task at one virtual time, told as one line of ``description``.
  struct Stretch {
    /// The entries of the stretch, in order; at least one.
    let entries: [Entry]
    /// The stretch as one entry: the first entry, with the actions of all of them, and where the
    /// last one left its task.
    let entry: Entry
    /// `4.` or `4–6.`.
    var steps: String {
      entries.count == 1 ? "\(entry.step)." : "\(entry.step)–\(entries[entries.count - 1].step)."
    }
  }

  /// The entries, folded into stretches of one task at one virtual time.
  var stretches: [Stretch] {
    var groups: [[Entry]] = []
    for entry in entries {
      if let last = groups.last?.last, last.task == entry.task, last.time == entry.time,
        last.taskName == entry.taskName
      {
        groups[groups.count - 1].append(entry)
      } else {
        groups.append([entry])
      }
    }
    return groups.map { group in
      let first = group[0]
      var actions = first.actions
      // A stretch that hops between executors names none of them.
      if group.contains(where: { $0.executor != first.executor }) && first.task != 0 {
        actions[0] = first.arrival
      }
      for entry in group.dropFirst() {
        let more = entry.arrival == "resumed" ? Array(entry.actions.dropFirst()) : entry.actions
        // Jobs of no task say the same thing once.
        actions += more.filter { first.task != 0 || !actions.contains($0) }
      }
      return Stretch(
        entries: group,
        entry: Entry(
          step: first.step, task: first.task, taskName: first.taskName, time: first.time,
          actions: actions, arrival: first.arrival, executor: first.executor,
          resumedBy: first.resumedBy, failed: group.contains(where: \.failed),
          site: group[group.count - 1].site, ending: group[group.count - 1].ending,
          shortName: first.shortName))
    }
  }
}
