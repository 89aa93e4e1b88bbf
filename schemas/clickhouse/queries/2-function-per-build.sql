-- SPDX-License-Identifier: MIT
-- The trend of one function per build: the share of samples with
-- json.dumps anywhere on the stack (each sample counted once).
SELECT
    labels.value[indexOf(labels.key, 'build')] AS build,
    sum(count) AS samples,
    sumIf(count, has(frames.function, 'dumps')) AS in_dumps,
    round(100 * in_dumps / samples, 1) AS pct
FROM tachyon_stacks
WHERE labels.value[indexOf(labels.key, 'service')] = 'api'
GROUP BY build
ORDER BY build
FORMAT PrettyCompactNoEscapes
