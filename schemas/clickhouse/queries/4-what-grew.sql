-- SPDX-License-Identifier: MIT
-- What grew between two label values: each function's share of samples
-- (as the running function) in version 41 and in version 42, and the
-- change in percentage points, largest growth first.
SELECT
    frames.function[-1] AS function,
    round(100 * sumIf(count, labels.value[indexOf(labels.key, 'version')] = '41')
        / (SELECT sum(count) FROM tachyon_stacks
           WHERE labels.value[indexOf(labels.key, 'version')] = '41'
             AND labels.value[indexOf(labels.key, 'service')] = 'api'), 1)
        AS pct_41,
    round(100 * sumIf(count, labels.value[indexOf(labels.key, 'version')] = '42')
        / (SELECT sum(count) FROM tachyon_stacks
           WHERE labels.value[indexOf(labels.key, 'version')] = '42'
             AND labels.value[indexOf(labels.key, 'service')] = 'api'), 1)
        AS pct_42,
    round(pct_42 - pct_41, 1) AS grew_pp
FROM tachyon_stacks
WHERE labels.value[indexOf(labels.key, 'service')] = 'api'
GROUP BY function
ORDER BY grew_pp DESC, function
LIMIT 5
FORMAT PrettyCompactNoEscapes
