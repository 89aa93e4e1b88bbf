-- SPDX-License-Identifier: MIT
-- The hottest functions of one service: samples whose running (last)
-- frame is in the function, and their share of the service's samples.
SELECT
    frames.function[-1] AS function,
    sum(count) AS samples,
    round(100 * samples / (
        SELECT sum(count) FROM tachyon_stacks
        WHERE labels.value[indexOf(labels.key, 'service')] = 'api'), 1) AS pct
FROM tachyon_stacks
WHERE labels.value[indexOf(labels.key, 'service')] = 'api'
GROUP BY function
ORDER BY samples DESC, function
LIMIT 5
FORMAT PrettyCompactNoEscapes
