@_exported public import Lockstep
