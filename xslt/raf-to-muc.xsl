<?xml version="1.0" encoding="UTF-8"?>
<!-- RAF 2.0 to MUC SGML: the twin of corefio/formats/muc.py's writer for documents
     without a MUC source text (the writer gives a document read from MUC back from its
     text and tags; that stays the Python writer's job). Each document becomes a
     MUC-6-style DOC marked "tokens separated by spaces", with a DOCNO (the document's
     label), a TXT and one <s> per sentence (none when a mention crosses a sentence),
     words separated by one space. Each markable of the default layer, and each markable
     of another layer that is in a chain, becomes a COREF: ID, TYPE="IDENT" REF= the
     antecedent (the identity links as they are when each mention has at most one
     antecedent, else each mention to the previous one of its chain in text order), MIN
     (the words of each MIN span, "|" between alternatives), STATUS="OPT".
     Mentions that cross another mention cannot nest: the stylesheet stops (the Python
     writer leaves them out and reports it). Tags are placed by keys on word numbers
     (linear time). Output: text (MUC SGML has no single root). -->
<xsl:stylesheet version="1.0"
                xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:exsl="http://exslt.org/common"
                extension-element-prefixes="exsl">
  <xsl:output method="text" encoding="UTF-8"/>

  <xsl:key name="starts" match="m" use="@first"/>
  <xsl:key name="ends" match="m" use="@last"/>
  <xsl:key name="chain" match="m" use="@chain"/>
  <xsl:key name="mref" match="m" use="@ref"/>
  <xsl:key name="mid" match="m" use="@id"/>
  <xsl:key name="word" match="w" use="@n"/>
  <xsl:key name="source" match="struct[@type='reflink']" use="concat(generate-id(..), '|', @source)"/>

  <xsl:variable name="identity" select="' coreference identity ident coref IDENT '"/>

  <xsl:template match="/">
    <xsl:for-each select="struct/struct[@type='document']">
      <xsl:call-template name="document"/>
    </xsl:for-each>
  </xsl:template>

  <xsl:template name="document">
    <xsl:variable name="doc" select="."/>
    <xsl:variable name="pd" select="struct[@type='primary_data']"/>
    <xsl:variable name="words" select="$pd//w"/>
    <!-- word number (position) of each w: RAF's n is the position (readers check it) -->
    <xsl:variable name="chains" select="struct[@type='markable'][not(@layer) or @entity or
                  key('source', concat(generate-id($doc), '|', concat(@layer, ':', @id)))]"/>
    <xsl:variable name="table">
      <xsl:for-each select="struct[@type='markable']">
        <xsl:variable name="span" select="@span"/>
        <xsl:if test="not(@span) or contains(@span, ',') or feat[@type='span']">
          <xsl:message terminate="yes">error: markable <xsl:value-of select="@id"/> is discontinuous (MUC cannot hold it)</xsl:message>
        </xsl:if>
        <xsl:variable name="ref">
          <xsl:if test="@layer"><xsl:value-of select="concat(@layer, ':')"/></xsl:if>
          <xsl:value-of select="@id"/>
        </xsl:variable>
        <!-- other layers: only markables in a chain (an entity or an identity link) -->
        <xsl:if test="not(@layer) or @entity or $doc/struct[@type='reflink'][@source = $ref or @target = $ref or feat/@target = $ref]
                      [not(@reflinktype) or contains($identity, concat(' ', @reflinktype, ' '))]">
          <m id="{@id}" ref="{$ref}" i="{position()}" chain="{@chain}">
            <xsl:attribute name="first"><xsl:value-of select="substring-before(concat($span, '..'), '..')"/></xsl:attribute>
            <xsl:attribute name="last">
              <xsl:choose>
                <xsl:when test="contains($span, '..')"><xsl:value-of select="substring-after($span, '..')"/></xsl:when>
                <xsl:otherwise><xsl:value-of select="$span"/></xsl:otherwise>
              </xsl:choose>
            </xsl:attribute>
            <xsl:copy-of select="@min | @optional | @entity"/>
          </m>
        </xsl:if>
      </xsl:for-each>
    </xsl:variable>
    <xsl:variable name="ms" select="exsl:node-set($table)/m"/>
    <!-- REF plan: the identity links as they are, when that is one antecedent per mention
         and no entity ids; else consecutive mentions of each chain -->
    <xsl:variable name="ident" select="struct[@type='reflink'][not(@reflinktype) or contains($identity, concat(' ', @reflinktype, ' '))]"/>
    <xsl:variable name="exact" select="not($ms[@entity]) and not(struct[@type='markable'][@entity])
                  and not($ident[feat[@type='target'] or @kind = 'entity'])
                  and not($ident[count(key('source', concat(generate-id($doc), '|', @source))
                                        [not(@reflinktype) or contains($identity, concat(' ', @reflinktype, ' '))]) &gt; 1])"/>
    <xsl:variable name="plan-rtf">
      <xsl:choose>
        <xsl:when test="$exact">
          <xsl:for-each select="$ident"><r source="{@source}" target="{@target}"/></xsl:for-each>
        </xsl:when>
        <xsl:otherwise>
          <xsl:for-each select="$ms[generate-id() = generate-id(key('chain', @chain)[1])]">
            <xsl:variable name="members">
              <xsl:for-each select="key('chain', @chain)">
                <xsl:sort select="@first" data-type="number"/>
                <xsl:sort select="@last" data-type="number" order="descending"/>
                <xsl:sort select="@i" data-type="number"/>
                <xsl:copy-of select="."/>
              </xsl:for-each>
            </xsl:variable>
            <xsl:for-each select="exsl:node-set($members)/m[position() &gt; 1]">
              <r source="{@ref}" target="{preceding-sibling::m[1]/@ref}"/>
            </xsl:for-each>
          </xsl:for-each>
        </xsl:otherwise>
      </xsl:choose>
    </xsl:variable>
    <xsl:variable name="plan" select="exsl:node-set($plan-rtf)/r"/>
    <xsl:message>rule <xsl:choose><xsl:when test="$exact">links-as-ref</xsl:when><xsl:otherwise>chains-as-ref</xsl:otherwise></xsl:choose>: <xsl:value-of select="count($plan)"/> REF attributes</xsl:message>
    <xsl:variable name="sentences" select="$pd/struct[@type='sentence']"/>
    <!-- a mention crossing a sentence boundary: no <s> at all -->
    <xsl:variable name="bounds-rtf">
      <xsl:for-each select="$sentences">
        <b first="{w[1]/@n}" last="{w[last()]/@n}"/>
      </xsl:for-each>
    </xsl:variable>
    <xsl:variable name="bounds" select="exsl:node-set($bounds-rtf)/b"/>
    <xsl:variable name="crossing" select="boolean($ms[$bounds[@first &lt;= current()/@first and @last &gt;= current()/@first][@last &lt; current()/@last]])"/>
    <xsl:text>&lt;DOC&gt;&#10;&lt;!-- corefio: tokens separated by spaces --&gt;&#10;&lt;DOCNO&gt; </xsl:text>
    <xsl:call-template name="esc">
      <xsl:with-param name="text">
        <xsl:value-of select="@name"/>
        <xsl:if test="@part"><xsl:value-of select="concat(' (part ', @part, ')')"/></xsl:if>
      </xsl:with-param>
    </xsl:call-template>
    <xsl:text> &lt;/DOCNO&gt;&#10;&lt;TXT&gt;&#10;</xsl:text>
    <xsl:choose>
      <xsl:when test="$sentences and not($crossing)">
        <xsl:message>rule sentence-s: <xsl:value-of select="count($sentences)"/> sentences as &lt;s&gt;</xsl:message>
        <xsl:for-each select="$sentences">
          <xsl:text>&lt;s&gt;</xsl:text>
          <xsl:call-template name="line">
            <xsl:with-param name="words" select="w"/>
            <xsl:with-param name="ms" select="$ms"/>
            <xsl:with-param name="plan" select="$plan"/>
            <xsl:with-param name="all" select="$words"/>
          </xsl:call-template>
          <xsl:text>&lt;/s&gt;&#10;</xsl:text>
        </xsl:for-each>
      </xsl:when>
      <xsl:when test="$words">
        <xsl:call-template name="line">
          <xsl:with-param name="words" select="$words"/>
          <xsl:with-param name="ms" select="$ms"/>
          <xsl:with-param name="plan" select="$plan"/>
          <xsl:with-param name="all" select="$words"/>
        </xsl:call-template>
        <xsl:text>&#10;</xsl:text>
      </xsl:when>
    </xsl:choose>
    <xsl:text>&lt;/TXT&gt;&#10;&lt;/DOC&gt;&#10;</xsl:text>
  </xsl:template>

  <!-- words with the COREF tags around them: at a word, the mentions starting there open
       (longest first), after it those ending there close (shortest first) -->
  <xsl:template name="line">
    <xsl:param name="words"/>
    <xsl:param name="ms"/>
    <xsl:param name="plan"/>
    <xsl:param name="all"/>
    <xsl:for-each select="$words">
      <xsl:variable name="n" select="string(@n)"/>
      <xsl:if test="position() &gt; 1"><xsl:text> </xsl:text></xsl:if>
      <xsl:for-each select="$ms[1]">
        <xsl:for-each select="key('starts', $n)">
          <xsl:sort select="@last" data-type="number" order="descending"/>
          <xsl:sort select="@i" data-type="number"/>
          <xsl:variable name="ref" select="@ref"/>
          <xsl:text>&lt;COREF ID="</xsl:text>
          <xsl:call-template name="muc-id"/>
          <xsl:text>"</xsl:text>
          <xsl:variable name="target" select="$plan[@source = $ref]/@target"/>
          <xsl:if test="$target">
            <xsl:text> TYPE="IDENT" REF="</xsl:text>
            <xsl:for-each select="key('mref', $target)"><xsl:call-template name="muc-id"/></xsl:for-each>
            <xsl:text>"</xsl:text>
          </xsl:if>
          <xsl:if test="@min">
            <xsl:text> MIN="</xsl:text>
            <xsl:call-template name="min">
              <xsl:with-param name="ranges" select="string(@min)"/>
              <xsl:with-param name="all" select="$all"/>
            </xsl:call-template>
            <xsl:text>"</xsl:text>
          </xsl:if>
          <xsl:if test="@optional = 'true'"><xsl:text> STATUS="OPT"</xsl:text></xsl:if>
          <xsl:text>&gt;</xsl:text>
        </xsl:for-each>
      </xsl:for-each>
      <xsl:call-template name="esc"><xsl:with-param name="text" select="translate(normalize-space(.), ' ', '_')"/></xsl:call-template>
      <xsl:for-each select="$ms[1]">
        <xsl:for-each select="key('ends', $n)"><xsl:text>&lt;/COREF&gt;</xsl:text></xsl:for-each>
      </xsl:for-each>
    </xsl:for-each>
  </xsl:template>

  <!-- the ID of the mention m in context: its id, unless a mention written before it (text
       order: first word, longest first, markable order) has the same id (a markable of
       another layer with a coreference markable's id): then its ref, layer:id, as the
       Python writer does. REF names the antecedent by the same ID. -->
  <xsl:template name="muc-id">
    <xsl:variable name="me" select="."/>
    <xsl:choose>
      <xsl:when test="key('mid', @id)[@first &lt; $me/@first
                                      or (@first = $me/@first and (@last &gt; $me/@last
                                          or (@last = $me/@last and @i &lt; $me/@i)))]">
        <xsl:call-template name="attr"><xsl:with-param name="text" select="@ref"/></xsl:call-template>
      </xsl:when>
      <xsl:otherwise>
        <xsl:call-template name="attr"><xsl:with-param name="text" select="@id"/></xsl:call-template>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <!-- MIN: the words of each range, "|" between ranges (quotes as &quot;) -->
  <xsl:template name="min">
    <xsl:param name="ranges"/>
    <xsl:param name="all"/>
    <xsl:variable name="range" select="substring-before(concat($ranges, '|'), '|')"/>
    <xsl:variable name="a" select="number(substring-before(concat($range, '..'), '..'))"/>
    <xsl:variable name="b">
      <xsl:choose>
        <xsl:when test="contains($range, '..')"><xsl:value-of select="substring-after($range, '..')"/></xsl:when>
        <xsl:otherwise><xsl:value-of select="$range"/></xsl:otherwise>
      </xsl:choose>
    </xsl:variable>
    <xsl:for-each select="$all[position() &gt;= $a and position() &lt;= number($b)]">
      <xsl:if test="position() &gt; 1"><xsl:text> </xsl:text></xsl:if>
      <xsl:call-template name="attr-min"><xsl:with-param name="text" select="translate(normalize-space(.), ' ', '_')"/></xsl:call-template>
    </xsl:for-each>
    <xsl:if test="contains($ranges, '|')">
      <xsl:text>|</xsl:text>
      <xsl:call-template name="min">
        <xsl:with-param name="ranges" select="substring-after($ranges, '|')"/>
        <xsl:with-param name="all" select="$all"/>
      </xsl:call-template>
    </xsl:if>
  </xsl:template>

  <!-- escaping: text & < >; ID values & " <; MIN values & < > then " -->
  <xsl:template name="esc">
    <xsl:param name="text"/>
    <xsl:call-template name="replace">
      <xsl:with-param name="text" select="$text"/>
      <xsl:with-param name="chars" select="'&amp;&lt;&gt;'"/>
    </xsl:call-template>
  </xsl:template>
  <xsl:template name="attr">
    <xsl:param name="text"/>
    <xsl:call-template name="replace">
      <xsl:with-param name="text" select="$text"/>
      <xsl:with-param name="chars" select="'&amp;&quot;&lt;'"/>
    </xsl:call-template>
  </xsl:template>
  <xsl:template name="attr-min">
    <xsl:param name="text"/>
    <xsl:call-template name="replace">
      <xsl:with-param name="text" select="$text"/>
      <xsl:with-param name="chars" select="'&amp;&lt;&gt;&quot;'"/>
    </xsl:call-template>
  </xsl:template>

  <xsl:template name="replace">
    <xsl:param name="text"/>
    <xsl:param name="chars"/>
    <xsl:choose>
      <xsl:when test="translate($text, $chars, '') = $text"><xsl:value-of select="$text"/></xsl:when>
      <xsl:otherwise>
        <xsl:variable name="c" select="substring($text, 1, 1)"/>
        <xsl:choose>
          <xsl:when test="$c = '&amp;' and contains($chars, '&amp;')">&amp;amp;</xsl:when>
          <xsl:when test="$c = '&lt;' and contains($chars, '&lt;')">&amp;lt;</xsl:when>
          <xsl:when test="$c = '&gt;' and contains($chars, '&gt;')">&amp;gt;</xsl:when>
          <xsl:when test="$c = '&quot;' and contains($chars, '&quot;')">&amp;quot;</xsl:when>
          <xsl:otherwise><xsl:value-of select="$c"/></xsl:otherwise>
        </xsl:choose>
        <xsl:call-template name="replace">
          <xsl:with-param name="text" select="substring($text, 2)"/>
          <xsl:with-param name="chars" select="$chars"/>
        </xsl:call-template>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:template>
</xsl:stylesheet>
