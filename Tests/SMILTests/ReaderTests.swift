import Testing

@testable import SMIL
