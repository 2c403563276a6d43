import Testing

/// Whether `issue` says `text`: a failed expectation whose expanded expression contains it, or a
/// recorded issue (a Lockstep report) whose comment contains it. The matcher of every
/// `withKnownIssue` here, so that a known issue is the expected failure and not just any.
func issue(_ issue: Issue, says text: String) -> Bool {
  "\(issue)".contains(text) || issue.comments.contains { $0.rawValue.contains(text) }
}
