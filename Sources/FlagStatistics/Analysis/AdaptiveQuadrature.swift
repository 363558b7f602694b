import Foundation

/// Globally adaptive Gauss–Kronrod quadrature (the 7-point Gauss rule embedded in the 15-point
/// Kronrod rule, as in QUADPACK's QAG: R. Piessens, E. de Doncker-Kapenga, C. W. Überhuber,
/// D. K. Kahaner, *QUADPACK*, Springer 1983, §2.2). The segment with the largest error estimate
/// |K15 − G7| is bisected until the estimates add up to the tolerance.
///
/// The nodes and weights are the published values of the rule (Kronrod 1965; tabulated in
/// QUADPACK's `qk15`).
enum AdaptiveQuadrature {
    /// The Kronrod abscissae on [−1, 1], from the outermost in; the last is the centre. The odd
    /// positions (1, 3, 5, centre) are the 7-point Gauss abscissae.
    private static let nodes: [Double] = [
        0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
        0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
        0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
        0.207784955007898467600689403773245, 0,
    ]
    private static let kronrodWeights: [Double] = [
        0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
        0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
        0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
        0.204432940075298892414161999234649, 0.209482141084727828012999174891714,
    ]
    /// The Gauss weights of nodes 1, 3, 5 and the centre.
    private static let gaussWeights: [Double] = [
        0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
        0.381830050505118944950369775488975, 0.417959183673469387755102040816327,
    ]

    private struct Segment {
        var low: Double
        var high: Double
        var value: Double
        var error: Double
    }

    /// ∫ f over [breakpoints.first, breakpoints.last], starting from the segments between
    /// consecutive breakpoints (which should sit where f changes fast), to a relative tolerance of
    /// `relativeTolerance` of the result or an absolute one of `absoluteTolerance`, whichever is
    /// larger; at most `maximumSegments` segments.
    static func integrate(
        _ f: (Double) -> Double, breakpoints: [Double], relativeTolerance: Double, absoluteTolerance: Double = 0,
        maximumSegments: Int = 1000
    ) -> Double {
        var segments: [Segment] = []
        for (low, high) in zip(breakpoints, breakpoints.dropFirst()) where high > low {
            segments.append(rule(f, low, high))
        }
        while segments.count < maximumSegments {
            var total = 0.0
            var error = 0.0
            var worst = 0
            for (index, segment) in segments.enumerated() {
                total += segment.value
                error += segment.error
                if segment.error > segments[worst].error { worst = index }
            }
            if error <= max(absoluteTolerance, relativeTolerance * abs(total)) { return total }
            let segment = segments[worst]
            let middle = (segment.low + segment.high) / 2
            // A segment narrower than the floating-point spacing cannot be split further.
            guard middle > segment.low, middle < segment.high else { return total }
            segments[worst] = rule(f, segment.low, middle)
            segments.append(rule(f, middle, segment.high))
        }
        return segments.reduce(0) { $0 + $1.value }
    }

    private struct VectorSegment {
        var low: Double
        var high: Double
        var values: [Double]
        var errors: [Double]
    }

    /// ∫ f over [breakpoints.first, breakpoints.last] for a function with `components` values,
    /// which `f` writes into its second argument: the integrals share their segments, so each
    /// point is evaluated once for all of them. Each component stops at a relative tolerance of
    /// `relativeTolerance` of its own result or an absolute one of `absoluteTolerance`, whichever
    /// is larger; the segment bisected next is the one whose errors, each divided by its
    /// component's tolerance, add up to the most. At most `maximumSegments` segments.
    static func integrate(
        components: Int, _ f: (Double, inout [Double]) -> Void, breakpoints: [Double], relativeTolerance: Double,
        absoluteTolerance: Double, maximumSegments: Int = 1000
    ) -> [Double] {
        var scratch = [Double](repeating: 0, count: components)
        var left = scratch
        func rule(_ low: Double, _ high: Double) -> VectorSegment {
            let centre = (low + high) / 2
            let half = (high - low) / 2
            f(centre, &scratch)
            var kronrod = scratch.map { kronrodWeights[7] * $0 }
            var gauss = scratch.map { gaussWeights[3] * $0 }
            for index in 0..<7 {
                let offset = half * nodes[index]
                f(centre - offset, &left)
                f(centre + offset, &scratch)
                for c in 0..<components {
                    let pair = left[c] + scratch[c]
                    kronrod[c] += kronrodWeights[index] * pair
                    if index % 2 == 1 { gauss[c] += gaussWeights[index / 2] * pair }
                }
            }
            return VectorSegment(
                low: low, high: high, values: kronrod.map { $0 * half },
                errors: (0..<components).map { abs((kronrod[$0] - gauss[$0]) * half) })
        }
        var segments: [VectorSegment] = []
        for (low, high) in zip(breakpoints, breakpoints.dropFirst()) where high > low {
            segments.append(rule(low, high))
        }
        func totals() -> [Double] {
            (0..<components).map { c in segments.reduce(0) { $0 + $1.values[c] } }
        }
        while segments.count < maximumSegments {
            let total = totals()
            let tolerances = total.map { max(absoluteTolerance, relativeTolerance * abs($0)) }
            var worst = 0
            var worstScore = -1.0
            var converged = true
            for c in 0..<components where segments.reduce(0, { $0 + $1.errors[c] }) > tolerances[c] {
                converged = false
            }
            if converged { return total }
            for (index, segment) in segments.enumerated() {
                var score = 0.0
                for c in 0..<components { score += segment.errors[c] / tolerances[c] }
                if score > worstScore {
                    worstScore = score
                    worst = index
                }
            }
            let segment = segments[worst]
            let middle = (segment.low + segment.high) / 2
            // A segment narrower than the floating-point spacing cannot be split further.
            guard middle > segment.low, middle < segment.high else { return total }
            segments[worst] = rule(segment.low, middle)
            segments.append(rule(middle, segment.high))
        }
        return totals()
    }

    /// The 15-point Kronrod estimate on [low, high], with |K15 − G7| as its error.
    private static func rule(_ f: (Double) -> Double, _ low: Double, _ high: Double) -> Segment {
        let centre = (low + high) / 2
        let half = (high - low) / 2
        let middleValue = f(centre)
        var kronrod = kronrodWeights[7] * middleValue
        var gauss = gaussWeights[3] * middleValue
        for index in 0..<7 {
            let offset = half * nodes[index]
            let pair = f(centre - offset) + f(centre + offset)
            kronrod += kronrodWeights[index] * pair
            if index % 2 == 1 { gauss += gaussWeights[index / 2] * pair }
        }
        return Segment(low: low, high: high, value: kronrod * half, error: abs((kronrod - gauss) * half))
    }
}
