/// The SVG text of a ``TimelinePicture``: a self-contained document (no scripts, no external
/// resources, only the generic font families), written the same, byte for byte, for the same
/// picture.
extension TimelinePicture {
  /// The colours, named once.
  private enum Colour {
    static let text = "#1f2328"
    static let muted = "#59636e"
    static let lane = "#f6f8fa"
    static let laneHeader = "#dde4ee"
    static let lifeline = "#b6c0cc"
    static let box = "#ffffff"
    static let boxStroke = "#8c959f"
    static let arrow = "#2f6fd6"
    static let failed = "#cf222e"
    static let failedFill = "#ffebe9"
  }

  /// The document.
  var svg: String {
    var out = SVGText()
    out.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
    out.raw(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" "
        + "viewBox=\"0 0 \(width) \(height)\" font-family=\"monospace\" font-size=\"12\">\n")
    out.element("title", text: header.first ?? "Lockstep timeline")
    out.raw(
      "<defs><marker id=\"arrowhead\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
        + "markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\">"
        + "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"\(Colour.arrow)\"/></marker></defs>\n")
    out.raw("<rect width=\"\(width)\" height=\"\(height)\" fill=\"#ffffff\"/>\n")

    // The header.
    out.raw("<g class=\"header\">\n")
    for (index, line) in header.enumerated() {
      let y = Self.margin + 12 + index * Self.headerLineHeight
      let weight = index == 0 ? " font-weight=\"bold\" font-size=\"14\"" : ""
      let fill = line.hasPrefix("- ") ? Colour.failed : Colour.text
      out.raw("<text x=\"\(Self.margin)\" y=\"\(y)\" fill=\"\(fill)\"\(weight) xml:space=\"preserve\">")
      out.characters(line)
      out.raw("</text>\n")
    }
    out.raw("</g>\n")

    // The lanes: a header with the task's name, a band down the page.
    let laneTop = headerHeight
    let laneBottom = height - Self.margin - footer.count * Self.headerLineHeight
    let columns = Int(Double(Self.laneWidth - 12) / Self.characterWidth)
    for lane in lanes {
      out.raw("<g class=\"lane\" data-task=\"\(lane.task)\">\n")
      out.raw(
        "<rect x=\"\(lane.x)\" y=\"\(laneTop)\" width=\"\(Self.laneWidth)\" "
          + "height=\"\(laneBottom - laneTop)\" fill=\"\(Colour.lane)\"/>\n")
      out.raw(
        "<line x1=\"\(lane.x + Self.laneWidth / 2)\" y1=\"\(laneTop + Self.laneHeaderHeight)\" "
          + "x2=\"\(lane.x + Self.laneWidth / 2)\" y2=\"\(laneBottom)\" stroke=\"\(Colour.lifeline)\" "
          + "stroke-dasharray=\"4 4\"/>\n")
      out.raw(
        "<rect x=\"\(lane.x)\" y=\"\(laneTop)\" width=\"\(Self.laneWidth)\" "
          + "height=\"\(Self.laneHeaderHeight - 4)\" rx=\"4\" fill=\"\(Colour.laneHeader)\"/>\n")
      // The name, on at most two lines; in full, with where the task was created, as a tooltip.
      out.raw("<title>")
      out.characters(lane.fullName)
      out.raw("</title>\n")
      var lines = Self.wrapped(lane.name, to: columns)
      if lines.count > Self.maxLaneHeaderLines {
        lines = Array(lines.prefix(Self.maxLaneHeaderLines))
        lines[lines.count - 1] = Self.truncated(lines[lines.count - 1] + " …", to: columns)
      }
      for (index, line) in lines.enumerated() {
        let y = laneTop + 17 + index * Self.lineHeight + (lines.count == 1 ? 7 : 0)
        out.raw(
          "<text x=\"\(lane.x + Self.laneWidth / 2)\" y=\"\(y)\" text-anchor=\"middle\" "
            + "font-family=\"sans-serif\" font-size=\"13\" font-weight=\"bold\" fill=\"\(Colour.text)\" "
            + "xml:space=\"preserve\">")
        out.characters(line)
        out.raw("</text>\n")
      }
      out.raw("</g>\n")
    }

    // The virtual time, in the left margin, where it moves.
    out.raw("<g class=\"times\" fill=\"\(Colour.muted)\">\n")
    for mark in times {
      out.raw("<text x=\"\(Self.margin)\" y=\"\(mark.y)\" xml:space=\"preserve\">")
      out.characters(mark.text)
      out.raw("</text>\n")
    }
    out.raw("</g>\n")

    // The boxes.
    for box in boxes {
      let stroke = box.failed ? Colour.failed : Colour.boxStroke
      let fill = box.failed ? Colour.failedFill : Colour.box
      let strokeWidth = box.failed ? "2.5" : "1"
      out.raw(
        "<g class=\"step\" data-steps=\"\(box.steps.lowerBound)-\(box.steps.upperBound)\""
          + (box.failed ? " data-failed=\"true\"" : "") + ">\n")
      out.element("title", text: box.fullText)
      out.raw(
        "<rect x=\"\(box.x)\" y=\"\(box.y)\" width=\"\(box.width)\" height=\"\(box.height)\" "
          + "rx=\"5\" fill=\"\(fill)\" stroke=\"\(stroke)\" stroke-width=\"\(strokeWidth)\"/>\n")
      let textX = box.x + Self.boxPadding
      var y = box.y + Self.boxPadding + Self.lineHeight - 3
      out.raw(
        "<text x=\"\(textX)\" y=\"\(y)\" fill=\"\(Colour.muted)\" font-size=\"11\" "
          + "xml:space=\"preserve\">")
      out.characters(box.label)
      out.raw("</text>\n")
      for (index, line) in box.lines.enumerated() {
        y += Self.lineHeight
        let failing = box.failed && index == box.lines.count - 1
        let attributes =
          failing ? "fill=\"\(Colour.failed)\" font-weight=\"bold\"" : "fill=\"\(Colour.text)\""
        out.raw("<text x=\"\(textX)\" y=\"\(y)\" \(attributes) xml:space=\"preserve\">")
        out.characters(line)
        out.raw("</text>\n")
      }
      out.raw("</g>\n")
    }

    // The arrows, over the boxes.
    for arrow in arrows {
      let (x1, y1) = arrow.start
      let (x2, y2) = arrow.end
      let bend = (x2 - x1) / 3
      out.raw(
        "<path class=\"arrow\" d=\"M\(x1),\(y1) C\(x1 + bend),\(y1) \(x2 - bend),\(y2) \(x2),\(y2)\" "
          + "fill=\"none\" stroke=\"\(Colour.arrow)\" stroke-width=\"1.5\" stroke-opacity=\"0.85\" "
          + "marker-end=\"url(#arrowhead)\"/>\n")
    }

    // The footer.
    for (index, line) in footer.enumerated() {
      let y = laneBottom + 14 + index * Self.headerLineHeight
      let fill = line.hasPrefix("✗") ? Colour.failed : Colour.muted
      out.raw("<text x=\"\(Self.margin)\" y=\"\(y)\" fill=\"\(fill)\" xml:space=\"preserve\">")
      out.characters(line)
      out.raw("</text>\n")
    }
    out.raw("</svg>\n")
    return out.output
  }
}

/// SVG text being written: markup as is, text escaped for XML.
private struct SVGText {
  private(set) var output = ""

  mutating func raw(_ markup: String) { output += markup }

  /// `<name>text</name>`, the text escaped.
  mutating func element(_ name: String, text content: String) {
    raw("<\(name)>")
    characters(content)
    raw("</\(name)>\n")
  }

  /// Character data: `&`, `<`, `>` and quotes escaped; line breaks and the other characters XML
  /// 1.0 does not allow become spaces and `?`.
  mutating func characters(_ content: String) {
    for scalar in content.unicodeScalars {
      switch scalar {
      case "&": output += "&amp;"
      case "<": output += "&lt;"
      case ">": output += "&gt;"
      case "\"": output += "&quot;"
      case "'": output += "&apos;"
      case "\n", "\r", "\t": output += " "
      default:
        let value = scalar.value
        let allowed =
          value >= 0x20 && !(0xD800...0xDFFF).contains(value) && value != 0xFFFE && value != 0xFFFF
        output.unicodeScalars.append(allowed ? scalar : "?")
      }
    }
  }
}
