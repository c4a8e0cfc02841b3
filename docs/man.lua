-- docs/man.lua: pandoc filter used by `make man` (docs/iotape.md -> iotape(1)).
-- Code spans (options, paths, commands) are written with every '-' as \- (roff's
-- minus sign, groff(7)), so groff never breaks a line after a hyphen inside
-- --start-when and a reader who copies an option gets ASCII hyphens. (The page
-- is not hyphenated either: the Makefile passes -V hyphenate=false.)

local function roff_text(s)
	local out = {}
	for _, c in utf8.codes(s) do
		if c == 92 then                    -- backslash
			out[#out + 1] = "\\e"
		elseif c == 45 then                -- hyphen-minus
			out[#out + 1] = "\\-"
		elseif c > 127 then                -- groff's named Unicode escape
			out[#out + 1] = string.format("\\[u%04X]", c)
		else
			out[#out + 1] = utf8.char(c)
		end
	end
	return table.concat(out)
end

function Code(el)
	-- \f[V] is pandoc's verbatim font, defined in the page's preamble; starting
	-- with an escape keeps a leading '.' or "'" from becoming a roff request
	return pandoc.RawInline("man", "\\f[V]" .. roff_text(el.text) .. "\\f[R]")
end
