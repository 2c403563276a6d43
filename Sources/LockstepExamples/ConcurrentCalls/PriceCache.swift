/// A cache of prices that loads each missing price once. `.broken` checks the cache, awaits the
/// load, then writes: two requests for one missing price both load it, and get different prices.
///
/// ```swift
/// let cache = PriceCache(variant: .correct)
/// let price = await cache.price(of: 1)   // loads it: 101
/// ```
public actor PriceCache {
  private let variant: Variant
  private let source = PriceLoader()
  private var prices: [Int: Int] = [:]
  private var entries: [Int: Task<Int, Never>] = [:]

  /// An empty cache.
  public init(variant: Variant) { self.variant = variant }

  /// The price of `item`: the cached one, or a newly loaded one.
  public func price(of item: Int) async -> Int {
    switch variant {
    case .correct:
      if let entry = entries[item] { return await entry.value }
      let source = source
      let entry = Task { await source.load(item) }
      entries[item] = entry
      return await entry.value
    case .broken:
      if let price = prices[item] { return price }
      let price = await source.load(item)
      prices[item] = price
      return price
    }
  }

  /// How many items the cache holds a price for, loaded or loading.
  public var count: Int { variant == .correct ? entries.count : prices.count }
}

/// Where a ``PriceCache`` loads prices: each load of an item gives a new price (`100 × item` plus
/// the number of times it was loaded), so a second load shows.
actor PriceLoader {
  private var loads: [Int: Int] = [:]

  func load(_ item: Int) -> Int {
    loads[item, default: 0] += 1
    return 100 * item + loads[item, default: 0]
  }
}
