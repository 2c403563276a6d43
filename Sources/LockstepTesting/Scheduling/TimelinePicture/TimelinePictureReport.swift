import Foundation

#if canImport(Testing)
  import Testing
#endif

/// Where the picture of a failing run goes, and what the report says about it: attached to the
/// running Swift Testing test as `lockstep-timeline.svg`, and written to the folder that
/// `LOCKSTEP_REPORTS` names when it is set (under any framework, or none).
enum TimelinePictureReport {
  static let variable = "LOCKSTEP_REPORTS"
  static let attachmentName = "lockstep-timeline.svg"

  /// The folder to write to, in place of `LOCKSTEP_REPORTS` (tests set it).
  struct Folder: Sendable {
    let path: String?
  }

  /// Replaces `LOCKSTEP_REPORTS` for the code it is bound around (`Folder(path: nil)`: unset).
  @TaskLocal static var folderOverride: Folder?
  /// Told of each picture attached to a Swift Testing test (tests set it).
  @TaskLocal static var attachmentObserver: (@Sendable (_ name: String, _ svg: String) -> Void)?

  /// Files written by this process, for unique names.
  private static let written = Locked(0)

  /// Attaches `svg` to the running Swift Testing test (unless issues are being collected) and
  /// writes it to the `LOCKSTEP_REPORTS` folder if set; returns the line the report adds: where
  /// the picture is, or how to get it. `label` starts the file's name (a test's name, a seed);
  /// `subject` is what it pictures, for the line.
  static func deliver(_ svg: String, label: String, subject: String = "schedule", at site: CallSite)
    -> String
  {
    deliverSayingWhetherWritten(svg, label: label, subject: subject, at: site).line
  }

  /// Like ``deliver(_:label:subject:at:)``, and says whether the `LOCKSTEP_REPORTS` folder was
  /// set (the line then names the file, or why it could not be written).
  static func deliverSayingWhetherWritten(
    _ svg: String, label: String, subject: String, at site: CallSite
  ) -> (line: String, toFolder: Bool) {
    let attached = attach(svg, at: site)
    if let folder {
      do {
        return ("Picture of the \(subject): \(try write(svg, label: label, in: folder))", true)
      } catch {
        return (
          "Picture of the \(subject): it could not be written to \(variable)=\(folder): \(error)",
          true
        )
      }
    }
    if attached {
      return (
        "Picture of the \(subject): attached to the test as \(attachmentName) (swift test "
          + "--attachments-path <folder> saves it), or set \(variable)=<folder> to have it "
          + "written there.", false
      )
    }
    return (
      "Picture of the \(subject): set \(variable)=<folder> to have it written there as an SVG "
        + "file, one a failure.", false
    )
  }

  /// The folder `LOCKSTEP_REPORTS` (or ``folderOverride``) names; `nil` when it is not set.
  static var folder: String? {
    let folder = folderOverride.map(\.path) ?? ProcessInfo.processInfo.environment[variable]
    guard let folder = folder?.trimmingCharacters(in: .whitespaces), !folder.isEmpty else {
      return nil
    }
    return folder
  }

  /// Attaches the picture to the running Swift Testing test; `false` when none runs or issues
  /// are collected.
  private static func attach(_ svg: String, at site: CallSite) -> Bool {
    #if canImport(Testing)
      guard IssueRouting.collector == nil, Test.current != nil else { return false }
      Attachment.record(
        svg, named: attachmentName,
        sourceLocation: SourceLocation(
          fileID: "\(site.fileID)", filePath: "\(site.filePath)", line: Int(site.line),
          column: Int(site.column)))
      attachmentObserver?(attachmentName, svg)
      return true
    #else
      return false
    #endif
  }

  /// Writes `svg` to a new file in `folder` (created if needed): `lockstep-<label>-<n>.svg`, the
  /// first `n` whose file does not exist yet. Returns its path.
  private static func write(_ svg: String, label: String, in folder: String) throws -> String {
    let files = FileManager.default
    try files.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let base = "lockstep-" + fileNamePart(label)
    while true {
      let number = written.withLock { count in
        count += 1
        return count
      }
      let path = (folder as NSString).appendingPathComponent("\(base)-\(number).svg")
      if files.fileExists(atPath: path) { continue }
      try Data(svg.utf8).write(to: URL(fileURLWithPath: path), options: .withoutOverwriting)
      return path
    }
  }

  /// `label` with every character but letters, digits, `.`, `_` and `-` replaced by `-`, at most
  /// 80 characters.
  static func fileNamePart(_ label: String) -> String {
    var part = ""
    for scalar in label.unicodeScalars {
      let keeps = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
      let character: Character = keeps || scalar == "." || scalar == "_" ? Character(scalar) : "-"
      if character == "-" && part.hasSuffix("-") { continue }
      part.append(character)
    }
    while part.hasPrefix("-") || part.hasPrefix(".") { part.removeFirst() }
    while part.hasSuffix("-") { part.removeLast() }
    return part.isEmpty ? "run" : String(part.prefix(80))
  }

  /// What names the failing test in a file name: the Swift Testing test, else the call site.
  static func label(at site: CallSite) -> String {
    #if canImport(Testing)
      if let test = Test.current { return test.name }
    #endif
    return "\(site.fileID)-\(site.line)"
  }
}
