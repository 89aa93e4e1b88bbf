-- SPDX-License-Identifier: MIT
-- Per-host outliers: each host's share of samples in checksum (as the
-- running function) next to the whole service's, largest excess first.
SELECT
    labels.value[indexOf(labels.key, 'host')] AS host,
    sum(count) AS samples,
    round(100 * sumIf(count, frames.function[-1] = 'checksum') / samples, 1)
        AS pct,
    round(pct - (
        SELECT 100 * sumIf(count, frames.function[-1] = 'checksum')
            / sum(count)
        FROM tachyon_stacks
        WHERE labels.value[indexOf(labels.key, 'service')] = 'api'), 1)
        AS above_service
FROM tachyon_stacks
WHERE labels.value[indexOf(labels.key, 'service')] = 'api'
GROUP BY host
ORDER BY above_service DESC, host
FORMAT PrettyCompactNoEscapes
