--[[
  An operator's action on one job by id (promoteJob, changeJobPriority): the job as it reads,
  or the answer the action gives at once without writing — written once, so the two agree on
  what "gone" and "left as it is" mean (DESIGN.md §3).

    operatedJob(base, jobKey, id, ...)
        HMGET of the job's group, state and finishedAt, then the fields named in `...`: returns
        the values (a list: group, state, finishedAt, then the others in order) and nil, or nil
        and what the script answers at once: JOB_NOT_FOUND (-1) for no hash, or a completed or
        dead job past its retention age (gone to every read, with a group or without, DESIGN.md
        §2 Retention, includes/retentionAge.lua); { id, fields, 0 } for a hash without a group
        (another writer's): no lane to act on, left as it is.
]]
--- @include "keys"
--- @include "payloads"
--- @include "nowMs"
--- @include "retentionAge"

local JOB_NOT_FOUND = -1

local function operatedJob(base, jobKey, id, ...)
  local job = redis.call('HMGET', jobKey, 'group', 'state', 'finishedAt', ...)
  -- Past its retention age a finished job is gone (as to every read), with a group or without.
  if finishedPast(settingsKeyOf(base), job[2], job[3], nowMs()) then
    return nil, JOB_NOT_FOUND
  end
  if not job[1] then
    if redis.call('EXISTS', jobKey) == 0 then
      return nil, JOB_NOT_FOUND
    end
    return nil, { id, jobFields(base, id), 0 }
  end
  return job, nil
end
