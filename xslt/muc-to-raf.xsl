<?xml version="1.0" encoding="UTF-8"?>
<!-- MUC-6/7 coreference (repaired into XML by corefio.repair.repair_bytes(kind="muc"))
     to RAF 2.0: the twin of corefio/formats/muc.py's reader for tokens, sentences,
     markables (spans, MIN, optional), REF links and chains.
     Three passes per DOC, each linear: (1) the DOC flattened into events: text (t), COREF
     start (o) and end (c), any other markup (t brk="1": it ends a run of character data,
     as section tags do in the Python reader); DOCID/DOCNO/STORYID content is not tokenised;
     (2) each text event cut into tokens with the reader's rules (white space and COREF
     tags cut; leading ( [ { " ` `` and trailing , ; : ! ? ) ] } " '' come off, not the ;
     of an entity reference; a final 's; a final period when the word ends its line or
     run); (3) tokens numbered, COREF spans read off the events around them.
     Not produced (the Python reader keeps them; XSLT sees the repaired XML, not the SGML
     bytes): the source text, token offsets and regions. Tokens, their order, sentences
     (consecutive tokens of one innermost section element), markables and links are equal.
     A DOC marked "corefio: tokens separated by spaces" is cut at white space only.
     Parameter stem: names a DOC without DOCID/DOCNO (stem-k). -->
<xsl:stylesheet version="1.0"
                xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:exsl="http://exslt.org/common"
                extension-element-prefixes="exsl">
  <xsl:output method="xml" encoding="UTF-8" indent="no"/>
  <xsl:param name="stem" select="'document'"/>

  <xsl:variable name="nl" select="'&#10;'"/>
  <xsl:variable name="upper" select="'ABCDEFGHIJKLMNOPQRSTUVWXYZ'"/>
  <xsl:variable name="lower" select="'abcdefghijklmnopqrstuvwxyz'"/>
  <xsl:variable name="ws" select="'&#9;&#10;&#13; '"/>
  <xsl:variable name="opening" select="'([{&quot;`'"/>
  <xsl:variable name="closing" select="',;:!?)]}&quot;'"/>
  <xsl:variable name="sep" select="'&#xE000;'"/>
  <xsl:variable name="spaces-mark" select="' corefio: tokens separated by spaces '"/>

  <xsl:key name="num" match="n" use="@g"/>
  <xsl:key name="at" match="n" use="@n"/>
  <xsl:key name="tokg" match="tok" use="generate-id()"/>
  <xsl:key name="gid" match="*" use="generate-id()"/>
  <xsl:key name="mid" match="m" use="@id"/>
  <xsl:key name="open" match="o" use="@g"/>
  <xsl:key name="close" match="c" use="@g"/>
  <xsl:key name="coref" match="*[translate(local-name(), 'coref', 'COREF') = 'COREF']"
           use="concat(generate-id(ancestor::*[translate(local-name(), 'doc', 'DOC') = 'DOC'][1]), '|', @*[translate(name(), 'id', 'ID') = 'ID'])"/>

  <xsl:template match="/">
    <struct type="reference_annotation_collection" version="2.0">
      <xsl:value-of select="$nl"/>
      <xsl:for-each select="//*[translate(local-name(), 'doc', 'DOC') = 'DOC']">
        <xsl:call-template name="document">
          <xsl:with-param name="k" select="position()"/>
        </xsl:call-template>
      </xsl:for-each>
    </struct>
    <xsl:value-of select="$nl"/>
  </xsl:template>

  <!-- pass 1: events -->
  <xsl:template match="text()" mode="flat">
    <xsl:call-template name="chunks">
      <xsl:with-param name="text" select="string(.)"/>
      <xsl:with-param name="s" select="generate-id(ancestor::*[translate(local-name(), $lower, $upper) != 'COREF'][1])"/>
    </xsl:call-template>
  </xsl:template>

  <!-- a long text node as several text events cut before line breaks, halving each time
       (recursion depth log n): the word loop then works on short strings. A cut before a
       line break changes no token: the next event starts with white space. -->
  <xsl:template name="chunks">
    <xsl:param name="text"/>
    <xsl:param name="s"/>
    <xsl:variable name="half" select="floor(string-length($text) div 2)"/>
    <xsl:variable name="tail" select="substring($text, $half + 1)"/>
    <xsl:choose>
      <xsl:when test="string-length($text) &gt; 2000 and contains($tail, '&#10;')">
        <xsl:variable name="cut" select="$half + string-length(substring-before($tail, '&#10;'))"/>
        <xsl:call-template name="chunks">
          <xsl:with-param name="text" select="substring($text, 1, $cut)"/>
          <xsl:with-param name="s" select="$s"/>
        </xsl:call-template>
        <xsl:call-template name="chunks">
          <xsl:with-param name="text" select="substring($text, $cut + 1)"/>
          <xsl:with-param name="s" select="$s"/>
        </xsl:call-template>
      </xsl:when>
      <xsl:otherwise><t s="{$s}"><xsl:value-of select="$text"/></t></xsl:otherwise>
    </xsl:choose>
  </xsl:template>
  <xsl:template match="*" mode="flat">
    <xsl:variable name="name" select="translate(local-name(), $lower, $upper)"/>
    <xsl:choose>
      <xsl:when test="$name = 'COREF'">
        <o g="{generate-id()}"/>
        <xsl:apply-templates select="node()" mode="flat"/>
        <c g="{generate-id()}"/>
      </xsl:when>
      <xsl:when test="$name = 'DOCID' or $name = 'DOCNO' or $name = 'STORYID'">
        <t brk="1"/><t brk="1"/>
      </xsl:when>
      <xsl:otherwise>
        <t brk="1"/>
        <xsl:apply-templates select="node()" mode="flat"/>
        <t brk="1"/>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:template>
  <xsl:template match="comment() | processing-instruction()" mode="flat"><t brk="1"/></xsl:template>

  <xsl:template name="document">
    <xsl:param name="k"/>
    <xsl:variable name="doc" select="."/>
    <xsl:variable name="spaces" select="boolean(.//comment()[. = $spaces-mark])"/>
    <xsl:variable name="events-rtf">
      <t brk="1"/>
      <xsl:apply-templates select="node()" mode="flat"/>
      <t brk="1"/>
    </xsl:variable>
    <xsl:variable name="events" select="exsl:node-set($events-rtf)"/>
    <!-- pass 2: tokens, each with the section (innermost non-COREF element) it is in;
         COREF start/end events kept between them -->
    <xsl:variable name="tokens-rtf">
      <xsl:for-each select="$events/*">
        <xsl:choose>
          <xsl:when test="self::t[not(@brk)]">
            <xsl:variable name="section" select="string(@s)"/>
            <!-- text and breaks share the element name t: following-sibling::t[1] is
                 found in constant time, a union test would scan every later event -->
            <xsl:variable name="next" select="following-sibling::t[1]"/>
            <xsl:call-template name="words">
              <xsl:with-param name="raw" select="string(.)"/>
              <xsl:with-param name="flat" select="translate(string(.), $ws, '    ')"/>
              <xsl:with-param name="section" select="$section"/>
              <xsl:with-param name="spaces" select="$spaces"/>
              <xsl:with-param name="continues" select="boolean($next[not(@brk)][not(contains($ws, substring(., 1, 1)))])"/>
              <xsl:with-param name="next" select="$next"/>
            </xsl:call-template>
          </xsl:when>
          <xsl:when test="self::o or self::c"><xsl:copy-of select="."/></xsl:when>
        </xsl:choose>
      </xsl:for-each>
    </xsl:variable>
    <xsl:variable name="tokens" select="exsl:node-set($tokens-rtf)"/>
    <xsl:variable name="toks" select="$tokens/tok"/>
    <!-- the document's name: DOCID or DOCNO, "name (part P)" giving a part -->
    <xsl:variable name="id-el" select="(.//*[translate(local-name(), $lower, $upper) = 'DOCID' or translate(local-name(), $lower, $upper) = 'DOCNO'])[1]"/>
    <xsl:variable name="raw-name" select="normalize-space($id-el/text()[1])"/>
    <xsl:variable name="has-part" select="contains($raw-name, ' (part ') and substring($raw-name, string-length($raw-name)) = ')'
                  and not(contains(substring-before(substring-after($raw-name, ' (part '), ')'), ' '))
                  and substring-after(substring-after($raw-name, ' (part '), ')') = ''"/>
    <xsl:text>&#10;</xsl:text>
    <struct type="document">
      <xsl:attribute name="name">
        <xsl:choose>
          <xsl:when test="$raw-name = ''"><xsl:value-of select="concat($stem, '-', $k)"/></xsl:when>
          <xsl:when test="$has-part"><xsl:value-of select="substring-before($raw-name, ' (part ')"/></xsl:when>
          <xsl:otherwise><xsl:value-of select="$raw-name"/></xsl:otherwise>
        </xsl:choose>
      </xsl:attribute>
      <xsl:if test="$raw-name != '' and $has-part">
        <xsl:attribute name="part"><xsl:value-of select="substring-before(substring-after($raw-name, ' (part '), ')')"/></xsl:attribute>
      </xsl:if>
      <xsl:value-of select="$nl"/>
      <xsl:message>rule <xsl:choose><xsl:when test="$spaces">spaces-tokens</xsl:when><xsl:otherwise>word-tokens</xsl:otherwise></xsl:choose>: <xsl:value-of select="count($toks)"/> tokens</xsl:message>
      <!-- token numbers (and sections), looked up by key -->
      <xsl:variable name="numbers-rtf">
        <xsl:for-each select="$toks"><n g="{generate-id()}" n="{position()}" s="{@s}"/></xsl:for-each>
      </xsl:variable>
      <xsl:variable name="numbers" select="exsl:node-set($numbers-rtf)"/>
      <struct type="primary_data">
        <xsl:value-of select="$nl"/>
        <!-- sentences: a token whose section differs from the previous token's starts
             one (found by key on the numbers table; no backward axis) -->
        <xsl:variable name="starts-rtf">
          <xsl:for-each select="$numbers/n">
            <xsl:if test="not(key('at', @n - 1)/@s = @s)"><st n="{@n}" g="{@g}"/></xsl:if>
          </xsl:for-each>
        </xsl:variable>
        <xsl:variable name="starts" select="exsl:node-set($starts-rtf)/st"/>
        <xsl:for-each select="$starts">
          <xsl:variable name="next" select="following-sibling::st[1]"/>
          <xsl:variable name="size">
            <xsl:choose>
              <xsl:when test="$next"><xsl:value-of select="$next/@n - @n"/></xsl:when>
              <xsl:otherwise><xsl:value-of select="count($toks) + 1 - @n"/></xsl:otherwise>
            </xsl:choose>
          </xsl:variable>
          <xsl:variable name="g" select="@g"/>
          <struct type="sentence">
            <xsl:value-of select="$nl"/>
            <xsl:for-each select="$tokens">
              <xsl:variable name="first" select="key('tokg', $g)"/>
              <xsl:for-each select="$first | $first/following-sibling::tok[position() &lt; $size]">
                <w><xsl:value-of select="."/></w>
                <xsl:value-of select="$nl"/>
              </xsl:for-each>
            </xsl:for-each>
          </struct>
          <xsl:value-of select="$nl"/>
        </xsl:for-each>
      </struct>
      <xsl:value-of select="$nl"/>
      <xsl:message>rule section-sentences: sentences are runs of tokens of one section element</xsl:message>
      <!-- pass 3: markables from the COREF events -->
      <xsl:variable name="corefs" select=".//*[translate(local-name(), $lower, $upper) = 'COREF']"/>
      <xsl:variable name="markables-rtf">
        <xsl:for-each select="$corefs">
          <xsl:variable name="g" select="generate-id()"/>
          <xsl:variable name="id" select="string(@*[translate(name(), $lower, $upper) = 'ID'])"/>
          <xsl:variable name="first-g">
            <xsl:for-each select="$tokens"><xsl:value-of select="generate-id(key('open', $g)/following-sibling::tok[1])"/></xsl:for-each>
          </xsl:variable>
          <xsl:variable name="after-g">
            <xsl:for-each select="$tokens"><xsl:value-of select="generate-id(key('close', $g)/following-sibling::tok[1])"/></xsl:for-each>
          </xsl:variable>
          <xsl:variable name="first">
            <xsl:for-each select="$numbers"><xsl:value-of select="key('num', $first-g)/@n"/></xsl:for-each>
          </xsl:variable>
          <xsl:variable name="last">
            <xsl:choose>
              <xsl:when test="$after-g = ''"><xsl:value-of select="count($toks)"/></xsl:when>
              <xsl:otherwise>
                <xsl:for-each select="$numbers"><xsl:value-of select="key('num', $after-g)/@n - 1"/></xsl:for-each>
              </xsl:otherwise>
            </xsl:choose>
          </xsl:variable>
          <xsl:if test="$first != '' and $last != '' and number($first) &lt;= number($last)">
            <!-- a repeated ID is renamed ID~2, ID~3... (REFs go to the first) -->
            <xsl:variable name="same" select="key('coref', concat(generate-id($doc), '|', $id))"/>
            <xsl:variable name="rank">
              <xsl:for-each select="$same">
                <xsl:if test="generate-id() = $g"><xsl:value-of select="position()"/></xsl:if>
              </xsl:for-each>
            </xsl:variable>
            <m g="{$g}" first="{$first}" last="{$last}">
              <xsl:attribute name="id">
                <xsl:value-of select="$id"/>
                <xsl:if test="$rank &gt; 1"><xsl:value-of select="concat('~', $rank)"/></xsl:if>
              </xsl:attribute>
              <xsl:for-each select="@*[translate(name(), $lower, $upper) = 'MIN']"><xsl:attribute name="min"><xsl:value-of select="."/></xsl:attribute></xsl:for-each>
              <xsl:for-each select="@*[translate(name(), $lower, $upper) = 'REF']"><xsl:attribute name="ref"><xsl:value-of select="."/></xsl:attribute></xsl:for-each>
              <xsl:for-each select="@*[translate(name(), $lower, $upper) = 'TYPE']"><xsl:attribute name="type"><xsl:value-of select="."/></xsl:attribute></xsl:for-each>
              <xsl:variable name="status" select="@*[translate(name(), $lower, $upper) = 'STATUS']"/>
              <xsl:variable name="stat" select="@*[translate(name(), $lower, $upper) = 'STAT']"/>
              <xsl:if test="translate($status, $lower, $upper) = 'OPT' or (not($status) and translate($stat, $lower, $upper) = 'OPT')">
                <xsl:attribute name="optional">true</xsl:attribute>
              </xsl:if>
            </m>
          </xsl:if>
        </xsl:for-each>
      </xsl:variable>
      <xsl:variable name="ms" select="exsl:node-set($markables-rtf)/m"/>
      <xsl:message>rule coref-markable: <xsl:value-of select="count($ms)"/> COREF elements</xsl:message>
      <xsl:for-each select="$ms">
        <xsl:variable name="m" select="."/>
        <struct type="markable" id="{@id}">
          <xsl:attribute name="span">
            <xsl:value-of select="@first"/>
            <xsl:if test="@last != @first"><xsl:value-of select="concat('..', @last)"/></xsl:if>
          </xsl:attribute>
          <xsl:if test="@min">
            <xsl:variable name="found">
              <xsl:for-each select="$numbers">
                <xsl:call-template name="min">
                  <xsl:with-param name="alternatives" select="string($m/@min)"/>
                  <xsl:with-param name="m" select="$m"/>
                  <xsl:with-param name="toks" select="$toks"/>
                  <xsl:with-param name="found" select="'|'"/>
                </xsl:call-template>
              </xsl:for-each>
            </xsl:variable>
            <xsl:if test="$found != ''">
              <xsl:attribute name="min"><xsl:value-of select="$found"/></xsl:attribute>
            </xsl:if>
          </xsl:if>
          <xsl:if test="@optional"><xsl:attribute name="optional">true</xsl:attribute></xsl:if>
        </struct>
        <xsl:value-of select="$nl"/>
      </xsl:for-each>
      <!-- REF: an identity link (TYPE other than IDENT: that type), unless it names no
           COREF of this DOC or the COREF itself -->
      <xsl:for-each select="$ms[@ref]">
        <xsl:variable name="ref" select="string(@ref)"/>
        <xsl:variable name="exists">
          <xsl:for-each select="$ms[1]"><xsl:value-of select="boolean(key('mid', $ref))"/></xsl:for-each>
        </xsl:variable>
        <xsl:choose>
          <xsl:when test="$ref != @id and $exists = 'true'">
            <struct type="reflink" id="ref_{@id}" source="{@id}" target="{$ref}">
              <xsl:if test="@type and translate(@type, $lower, $upper) != 'IDENT'">
                <xsl:attribute name="reflinktype"><xsl:value-of select="@type"/></xsl:attribute>
              </xsl:if>
            </struct>
            <xsl:value-of select="$nl"/>
          </xsl:when>
          <xsl:otherwise>
            <xsl:message>dropped: REF=<xsl:value-of select="$ref"/> of COREF ID=<xsl:value-of select="@id"/> names itself or no COREF of this DOC</xsl:message>
          </xsl:otherwise>
        </xsl:choose>
      </xsl:for-each>
      <xsl:message>rule ref-link: <xsl:value-of select="count($ms[@ref])"/> REF attributes</xsl:message>
    </struct>
    <xsl:value-of select="$nl"/>
  </xsl:template>

  <!-- the words of a text event; $flat is $raw with white space as spaces -->
  <xsl:template name="words">
    <xsl:param name="raw"/>
    <xsl:param name="flat"/>
    <xsl:param name="section"/>
    <xsl:param name="spaces"/>
    <xsl:param name="continues"/>
    <xsl:param name="next"/>
    <xsl:variable name="lead" select="string-length(substring-before($flat, substring(normalize-space($flat), 1, 1)))"/>
    <xsl:if test="normalize-space($flat) != ''">
      <xsl:variable name="rest" select="substring($flat, $lead + 1)"/>
      <xsl:variable name="word" select="substring-before(concat($rest, ' '), ' ')"/>
      <xsl:variable name="len" select="string-length($word)"/>
      <xsl:variable name="after-raw" select="substring($raw, $lead + $len + 1)"/>
      <xsl:variable name="at-end" select="$after-raw = ''"/>
      <!-- does the word end its line (or the run)? -->
      <xsl:variable name="ends-line">
        <xsl:choose>
          <xsl:when test="normalize-space($after-raw) != ''">
            <xsl:value-of select="contains(substring-before($after-raw, substring(normalize-space($after-raw), 1, 1)), '&#10;')"/>
          </xsl:when>
          <xsl:when test="contains($after-raw, '&#10;')">true</xsl:when>
          <xsl:otherwise>
            <xsl:call-template name="line-ends-after"><xsl:with-param name="e" select="$next"/></xsl:call-template>
          </xsl:otherwise>
        </xsl:choose>
      </xsl:variable>
      <xsl:call-template name="piece">
        <xsl:with-param name="text" select="substring($raw, $lead + 1, $len)"/>
        <xsl:with-param name="section" select="$section"/>
        <xsl:with-param name="spaces" select="$spaces"/>
        <xsl:with-param name="last" select="not($at-end and $continues)"/>
        <xsl:with-param name="ends-line" select="$ends-line = 'true'"/>
      </xsl:call-template>
      <xsl:call-template name="words">
        <xsl:with-param name="raw" select="$after-raw"/>
        <xsl:with-param name="flat" select="substring($rest, $len + 1)"/>
        <xsl:with-param name="section" select="$section"/>
        <xsl:with-param name="spaces" select="$spaces"/>
        <xsl:with-param name="continues" select="$continues"/>
        <xsl:with-param name="next" select="$next"/>
      </xsl:call-template>
    </xsl:if>
  </xsl:template>

  <!-- after the end of a text event: only white space up to a line break, or the run's end? -->
  <xsl:template name="line-ends-after">
    <xsl:param name="e"/>
    <xsl:choose>
      <xsl:when test="not($e) or $e/@brk">true</xsl:when>
      <xsl:when test="normalize-space($e) = ''">
        <xsl:choose>
          <xsl:when test="contains($e, '&#10;')">true</xsl:when>
          <xsl:otherwise>
            <xsl:call-template name="line-ends-after">
              <xsl:with-param name="e" select="$e/following-sibling::t[1]"/>
            </xsl:call-template>
          </xsl:otherwise>
        </xsl:choose>
      </xsl:when>
      <xsl:otherwise>
        <xsl:value-of select="contains(substring-before(translate($e, '&#9;&#13;', '  '), substring(normalize-space($e), 1, 1)), '&#10;')"/>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <!-- one piece of a word (a word cut by COREF tags has several): punctuation off -->
  <xsl:template name="piece">
    <xsl:param name="text"/>
    <xsl:param name="section"/>
    <xsl:param name="spaces"/>
    <xsl:param name="last"/>
    <xsl:param name="ends-line"/>
    <xsl:choose>
      <xsl:when test="$text = ''"/>
      <xsl:when test="$spaces or translate($text, concat($opening, $closing, &quot;'.&quot;), '') = $text">
        <tok s="{$section}"><xsl:value-of select="$text"/></tok>
      </xsl:when>
      <xsl:when test="string-length($text) &gt; 1 and starts-with($text, '``')">
        <tok s="{$section}">``</tok>
        <xsl:call-template name="piece">
          <xsl:with-param name="text" select="substring($text, 3)"/>
          <xsl:with-param name="section" select="$section"/>
          <xsl:with-param name="spaces" select="$spaces"/>
          <xsl:with-param name="last" select="$last"/>
          <xsl:with-param name="ends-line" select="$ends-line"/>
        </xsl:call-template>
      </xsl:when>
      <xsl:when test="string-length($text) &gt; 1 and contains($opening, substring($text, 1, 1))">
        <tok s="{$section}"><xsl:value-of select="substring($text, 1, 1)"/></tok>
        <xsl:call-template name="piece">
          <xsl:with-param name="text" select="substring($text, 2)"/>
          <xsl:with-param name="section" select="$section"/>
          <xsl:with-param name="spaces" select="$spaces"/>
          <xsl:with-param name="last" select="$last"/>
          <xsl:with-param name="ends-line" select="$ends-line"/>
        </xsl:call-template>
      </xsl:when>
      <xsl:otherwise>
        <xsl:call-template name="tail">
          <xsl:with-param name="text" select="$text"/>
          <xsl:with-param name="section" select="$section"/>
          <xsl:with-param name="last" select="$last"/>
          <xsl:with-param name="ends-line" select="$ends-line"/>
          <xsl:with-param name="tails" select="''"/>
        </xsl:call-template>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <!-- trailing punctuation, collected in $tails (separated by U+E000, in text order) -->
  <xsl:template name="tail">
    <xsl:param name="text"/>
    <xsl:param name="section"/>
    <xsl:param name="last"/>
    <xsl:param name="ends-line"/>
    <xsl:param name="tails"/>
    <xsl:variable name="n" select="string-length($text)"/>
    <xsl:variable name="c" select="substring($text, $n, 1)"/>
    <xsl:choose>
      <xsl:when test="$n &gt; 1 and substring($text, $n - 1) = &quot;''&quot;">
        <xsl:call-template name="tail">
          <xsl:with-param name="text" select="substring($text, 1, $n - 2)"/>
          <xsl:with-param name="section" select="$section"/>
          <xsl:with-param name="last" select="$last"/>
          <xsl:with-param name="ends-line" select="$ends-line"/>
          <xsl:with-param name="tails" select="concat($sep, &quot;''&quot;, $tails)"/>
        </xsl:call-template>
      </xsl:when>
      <xsl:when test="$n &gt; 1 and contains($closing, $c) and not($c = ';' and contains($text, '&amp;')
                      and translate(substring-after($text, '&amp;'), 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-#', '') = ';'
                      and not(contains(substring-after(substring-after($text, '&amp;'), '#'), '#')))">
        <xsl:call-template name="tail">
          <xsl:with-param name="text" select="substring($text, 1, $n - 1)"/>
          <xsl:with-param name="section" select="$section"/>
          <xsl:with-param name="last" select="$last"/>
          <xsl:with-param name="ends-line" select="$ends-line"/>
          <xsl:with-param name="tails" select="concat($sep, $c, $tails)"/>
        </xsl:call-template>
      </xsl:when>
      <xsl:when test="$n &gt; 1 and $c = '.' and substring($text, $n - 1, 1) != '.' and $last and $tails = '' and $ends-line">
        <xsl:call-template name="tail">
          <xsl:with-param name="text" select="substring($text, 1, $n - 1)"/>
          <xsl:with-param name="section" select="$section"/>
          <xsl:with-param name="last" select="$last"/>
          <xsl:with-param name="ends-line" select="$ends-line"/>
          <xsl:with-param name="tails" select="concat($sep, '.', $tails)"/>
        </xsl:call-template>
      </xsl:when>
      <xsl:otherwise>
        <xsl:variable name="clitic" select="$n &gt; 2 and (substring($text, $n - 1) = &quot;'s&quot; or substring($text, $n - 1) = &quot;'S&quot;)"/>
        <xsl:variable name="body">
          <xsl:choose>
            <xsl:when test="$clitic"><xsl:value-of select="substring($text, 1, $n - 2)"/></xsl:when>
            <xsl:otherwise><xsl:value-of select="$text"/></xsl:otherwise>
          </xsl:choose>
        </xsl:variable>
        <xsl:if test="$body != ''"><tok s="{$section}"><xsl:value-of select="$body"/></tok></xsl:if>
        <xsl:if test="$clitic"><tok s="{$section}"><xsl:value-of select="substring($text, $n - 1)"/></tok></xsl:if>
        <xsl:call-template name="emit-tails">
          <xsl:with-param name="tails" select="substring-after($tails, $sep)"/>
          <xsl:with-param name="section" select="$section"/>
        </xsl:call-template>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <xsl:template name="emit-tails">
    <xsl:param name="tails"/>
    <xsl:param name="section"/>
    <xsl:if test="$tails != ''">
      <tok s="{$section}"><xsl:value-of select="substring-before(concat($tails, $sep), $sep)"/></tok>
      <xsl:call-template name="emit-tails">
        <xsl:with-param name="tails" select="substring-after($tails, $sep)"/>
        <xsl:with-param name="section" select="$section"/>
      </xsl:call-template>
    </xsl:if>
  </xsl:template>

  <!-- MIN: each alternative (white space normalised) looked for among the markable's
       words: the last occurrence that starts and ends on word boundaries, else the last
       occurrence inside words (the words around it). Context: the numbers node-set. -->
  <xsl:template name="min">
    <xsl:param name="alternatives"/>
    <xsl:param name="m"/>
    <xsl:param name="toks"/>
    <xsl:param name="found"/>
    <xsl:variable name="want" select="normalize-space(substring-before(concat($alternatives, '|'), '|'))"/>
    <xsl:variable name="span">
      <xsl:if test="$want != ''">
        <xsl:variable name="start-g" select="key('at', $m/@first)/@g"/>
        <xsl:variable name="words-rtf">
          <xsl:for-each select="$toks[1]">
            <xsl:variable name="f" select="key('tokg', $start-g)"/>
            <xsl:for-each select="$f | $f/following-sibling::tok[position() &lt;= $m/@last - $m/@first]">
              <x><xsl:value-of select="."/></x>
            </xsl:for-each>
          </xsl:for-each>
        </xsl:variable>
        <xsl:variable name="words" select="exsl:node-set($words-rtf)/x"/>
        <xsl:variable name="size" select="string-length(translate($want, translate($want, ' ', ''), '')) + 1"/>
        <xsl:variable name="aligned">
          <xsl:for-each select="$words">
            <xsl:sort select="position()" data-type="number" order="descending"/>
            <xsl:variable name="k" select="$m/@last - position() + 1"/>
            <xsl:variable name="joined">
              <xsl:for-each select="$words[position() &gt;= $k - $m/@first + 1 and position() &lt; $k - $m/@first + 1 + $size]">
                <xsl:if test="position() &gt; 1"><xsl:text> </xsl:text></xsl:if>
                <xsl:value-of select="."/>
              </xsl:for-each>
            </xsl:variable>
            <xsl:if test="$k + $size - 1 &lt;= $m/@last and $joined = $want">
              <xsl:value-of select="concat($k, '..', $k + $size - 1, ';')"/>
            </xsl:if>
          </xsl:for-each>
        </xsl:variable>
        <xsl:choose>
          <xsl:when test="$aligned != ''">
            <xsl:value-of select="substring-before($aligned, ';')"/>
          </xsl:when>
          <xsl:otherwise>
            <!-- inside words: the last occurrence in the joined words -->
            <xsl:variable name="all">
              <xsl:for-each select="$words">
                <xsl:if test="position() &gt; 1"><xsl:text> </xsl:text></xsl:if>
                <xsl:value-of select="."/>
              </xsl:for-each>
            </xsl:variable>
            <xsl:if test="contains($all, $want)">
              <xsl:variable name="at">
                <xsl:call-template name="last-index">
                  <xsl:with-param name="text" select="$all"/>
                  <xsl:with-param name="want" select="$want"/>
                  <xsl:with-param name="offset" select="0"/>
                </xsl:call-template>
              </xsl:variable>
              <xsl:variable name="before" select="substring($all, 1, $at)"/>
              <xsl:variable name="through" select="substring($all, 1, $at + string-length($want))"/>
              <xsl:variable name="a" select="$m/@first + string-length($before) - string-length(translate($before, ' ', ''))"/>
              <xsl:variable name="b" select="$m/@first + string-length($through) - string-length(translate($through, ' ', '')) - (substring($through, string-length($through)) = ' ')"/>
              <xsl:message>rule min-inside-word: MIN <xsl:value-of select="$want"/> is part of a word: the whole words taken</xsl:message>
              <xsl:value-of select="concat($a, '..', $b)"/>
            </xsl:if>
          </xsl:otherwise>
        </xsl:choose>
      </xsl:if>
    </xsl:variable>
    <xsl:variable name="range">
      <xsl:choose>
        <xsl:when test="$span = ''"/>
        <xsl:when test="substring-before($span, '..') = substring-after($span, '..')"><xsl:value-of select="substring-before($span, '..')"/></xsl:when>
        <xsl:otherwise><xsl:value-of select="$span"/></xsl:otherwise>
      </xsl:choose>
    </xsl:variable>
    <xsl:if test="$want != '' and $span = ''">
      <xsl:message>dropped: MIN alternative <xsl:value-of select="$want"/> is not in its text</xsl:message>
    </xsl:if>
    <xsl:variable name="now">
      <xsl:choose>
        <xsl:when test="$range != '' and not(contains($found, concat('|', $range, '|')))"><xsl:value-of select="concat($found, $range, '|')"/></xsl:when>
        <xsl:otherwise><xsl:value-of select="$found"/></xsl:otherwise>
      </xsl:choose>
    </xsl:variable>
    <xsl:choose>
      <xsl:when test="contains($alternatives, '|')">
        <xsl:call-template name="min">
          <xsl:with-param name="alternatives" select="substring-after($alternatives, '|')"/>
          <xsl:with-param name="m" select="$m"/>
          <xsl:with-param name="toks" select="$toks"/>
          <xsl:with-param name="found" select="$now"/>
        </xsl:call-template>
      </xsl:when>
      <xsl:otherwise>
        <xsl:value-of select="substring($now, 2, string-length($now) - 2)"/>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <!-- 0-based index of the last occurrence of $want in $text -->
  <xsl:template name="last-index">
    <xsl:param name="text"/>
    <xsl:param name="want"/>
    <xsl:param name="offset"/>
    <xsl:variable name="before" select="substring-before($text, $want)"/>
    <xsl:variable name="here" select="$offset + string-length($before)"/>
    <xsl:variable name="rest" select="substring($text, string-length($before) + 2)"/>
    <xsl:choose>
      <xsl:when test="contains($rest, $want)">
        <xsl:call-template name="last-index">
          <xsl:with-param name="text" select="$rest"/>
          <xsl:with-param name="want" select="$want"/>
          <xsl:with-param name="offset" select="$here + 1"/>
        </xsl:call-template>
      </xsl:when>
      <xsl:otherwise><xsl:value-of select="$here"/></xsl:otherwise>
    </xsl:choose>
  </xsl:template>
</xsl:stylesheet>
