<?xml version="1.0" encoding="UTF-8"?>
<!-- RAF 2.0 to inline MATE coreference XML: the twin of corefio/formats/mate.py's writer
     for documents MATE can hold (markables nest, one span each, within a sentence, all
     of the coreference layer; word attribute columns are not written). Each markable
     becomes a <coref:de> around its
     words, each reflink a <coref:link> with one <coref:anchor> per target (type
     coreference is written ident), each entity a <coref:ue>; chains given by entity ids
     become ident links between consecutive mentions of a chain, as the Python writer
     makes them.
     The XML is written as text (output method text), word by word: a word opens the
     markables starting on it (longest first) and closes those ending on it, found by
     keys on word numbers. So the time is linear and no template recursion grows with the
     length of a sentence (a result tree built element inside element would need one). -->
<xsl:stylesheet version="1.0"
                xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:exsl="http://exslt.org/common"
                extension-element-prefixes="exsl">
  <xsl:output method="text" encoding="UTF-8"/>

  <xsl:variable name="ns" select="'http://www.ims.uni-stuttgart.de/projekte/mate/mdag/cr'"/>
  <xsl:variable name="identity" select="' coreference identity ident coref IDENT '"/>
  <xsl:key name="starts" match="m" use="@first"/>
  <xsl:key name="ends" match="m" use="@last"/>
  <xsl:key name="chain" match="m" use="@chain"/>

  <xsl:template match="/">
    <xsl:text>&lt;?xml version="1.0" encoding="UTF-8"?&gt;&#10;&lt;coref:mate xmlns:coref="</xsl:text>
    <xsl:value-of select="$ns"/>
    <xsl:text>" version="1.0"&gt;&#10;</xsl:text>
    <xsl:for-each select="struct/struct[@type='document']">
      <xsl:call-template name="document"/>
    </xsl:for-each>
    <xsl:text>&lt;/coref:mate&gt;&#10;</xsl:text>
  </xsl:template>

  <xsl:template name="document">
    <!-- MATE has no layers: a markable of another layer would be written with its id
         while links name it layer:id (a file no reader takes). corefio's engine gives
         this stylesheet documents restricted to what MATE holds (mate.one_layer) -->
    <xsl:if test="struct[@type='markable'][@layer]">
      <xsl:message terminate="yes">error: markable <xsl:value-of select="concat(struct[@type='markable'][@layer][1]/@layer, ':', struct[@type='markable'][@layer][1]/@id)"/> is of another layer than coreference (MATE has none; corefio's engine restricts documents to what MATE holds first)</xsl:message>
    </xsl:if>
    <!-- markables with their first and last word numbers, as a keyed node-set -->
    <xsl:variable name="table">
      <xsl:for-each select="struct[@type='markable']">
        <xsl:variable name="span" select="@span"/>
        <xsl:if test="not(@span) or contains(@span, ',') or feat[@type='span']">
          <xsl:message terminate="yes">error: markable <xsl:value-of select="@id"/> is discontinuous (MATE cannot hold it)</xsl:message>
        </xsl:if>
        <m id="{@id}" i="{position()}" chain="{@chain}">
          <xsl:attribute name="first"><xsl:value-of select="substring-before(concat($span, '..'), '..')"/></xsl:attribute>
          <xsl:attribute name="last">
            <xsl:choose>
              <xsl:when test="contains($span, '..')"><xsl:value-of select="substring-after($span, '..')"/></xsl:when>
              <xsl:otherwise><xsl:value-of select="$span"/></xsl:otherwise>
            </xsl:choose>
          </xsl:attribute>
          <xsl:copy-of select="feat[@type='attribute']"/>
        </m>
      </xsl:for-each>
    </xsl:variable>
    <xsl:variable name="ms" select="exsl:node-set($table)/m"/>
    <xsl:message>rule markable-de: <xsl:value-of select="count($ms)"/> markables as discourse entities</xsl:message>
    <xsl:text>&lt;coref:doc name="</xsl:text>
    <xsl:call-template name="attr"><xsl:with-param name="text" select="@name"/></xsl:call-template>
    <xsl:text>"</xsl:text>
    <xsl:if test="@part">
      <xsl:text> part="</xsl:text>
      <xsl:call-template name="attr"><xsl:with-param name="text" select="@part"/></xsl:call-template>
      <xsl:text>"</xsl:text>
    </xsl:if>
    <xsl:text>&gt;&#10;</xsl:text>
    <xsl:variable name="pd" select="struct[@type='primary_data']"/>
    <xsl:variable name="ids" select="$pd/@ids = 'yes'"/>
    <xsl:if test="$pd/feat[@type='column']">
      <xsl:message>rule columns-dropped: word attribute columns are not written by this stylesheet</xsl:message>
    </xsl:if>
    <xsl:choose>
      <xsl:when test="$pd/struct[@type='sentence']">
        <xsl:for-each select="$pd/struct[@type='sentence']">
          <xsl:text>&lt;coref:s</xsl:text>
          <xsl:if test="@id">
            <xsl:text> id="</xsl:text>
            <xsl:call-template name="attr"><xsl:with-param name="text" select="@id"/></xsl:call-template>
            <xsl:text>"</xsl:text>
          </xsl:if>
          <xsl:call-template name="attributes"><xsl:with-param name="feats" select="feat[@type='attribute']"/></xsl:call-template>
          <xsl:text>&gt;</xsl:text>
          <xsl:call-template name="words">
            <xsl:with-param name="words" select="w"/>
            <xsl:with-param name="ms" select="$ms"/>
            <xsl:with-param name="ids" select="$ids"/>
          </xsl:call-template>
          <xsl:text>&lt;/coref:s&gt;&#10;</xsl:text>
        </xsl:for-each>
      </xsl:when>
      <xsl:when test="$pd/w">
        <xsl:call-template name="words">
          <xsl:with-param name="words" select="$pd/w"/>
          <xsl:with-param name="ms" select="$ms"/>
          <xsl:with-param name="ids" select="$ids"/>
        </xsl:call-template>
        <xsl:text>&#10;</xsl:text>
      </xsl:when>
    </xsl:choose>
    <xsl:for-each select="struct[@type='entity']">
      <xsl:text>&lt;coref:ue ID="</xsl:text>
      <xsl:call-template name="attr"><xsl:with-param name="text" select="@id"/></xsl:call-template>
      <xsl:text>"</xsl:text>
      <xsl:call-template name="attributes"><xsl:with-param name="feats" select="feat[@type='attribute']"/></xsl:call-template>
      <xsl:text>/&gt;&#10;</xsl:text>
    </xsl:for-each>
    <xsl:if test="struct[@type='entity']">
      <xsl:message>rule entity-ue: <xsl:value-of select="count(struct[@type='entity'])"/> entities as universe entities</xsl:message>
    </xsl:if>
    <xsl:variable name="by-entity" select="boolean(struct[@type='markable'][@entity])"/>
    <xsl:if test="$by-entity and struct[@type='markable'][not(@chain)]">
      <xsl:message terminate="yes">error: markables with entity ids but without chain numbers (RAF written by corefio has them)</xsl:message>
    </xsl:if>
    <xsl:variable name="links" select="struct[@type='reflink'][not($by-entity) or (@reflinktype and not(contains($identity, concat(' ', @reflinktype, ' '))))]"/>
    <xsl:for-each select="$links">
      <xsl:call-template name="link">
        <xsl:with-param name="id" select="string(@id)"/>
        <xsl:with-param name="source" select="string(@source)"/>
        <xsl:with-param name="type">
          <xsl:choose>
            <xsl:when test="not(@reflinktype) or @reflinktype = 'coreference'">ident</xsl:when>
            <xsl:otherwise><xsl:value-of select="@reflinktype"/></xsl:otherwise>
          </xsl:choose>
        </xsl:with-param>
        <xsl:with-param name="feats" select="feat[@type='attribute']"/>
        <xsl:with-param name="targets" select="@target | feat[@type='target']/@target"/>
      </xsl:call-template>
    </xsl:for-each>
    <xsl:if test="$links">
      <xsl:message>rule reflink-link: <xsl:value-of select="count($links)"/> reflinks as links with anchors</xsl:message>
    </xsl:if>
    <xsl:if test="$by-entity">
      <!-- chains given by entity ids: each mention linked to the previous one of its
           chain (text order: first word, then longest first, then markable order) -->
      <xsl:variable name="pairs">
        <xsl:for-each select="$ms[generate-id() = generate-id(key('chain', @chain)[1])]">
          <xsl:sort select="@chain" data-type="number"/>
          <xsl:variable name="members">
            <xsl:for-each select="key('chain', @chain)">
              <xsl:sort select="@first" data-type="number"/>
              <xsl:sort select="@last" data-type="number" order="descending"/>
              <xsl:sort select="@i" data-type="number"/>
              <xsl:copy-of select="."/>
            </xsl:for-each>
          </xsl:variable>
          <xsl:for-each select="exsl:node-set($members)/m[position() &gt; 1]">
            <pair source="{@id}" target="{preceding-sibling::m[1]/@id}"/>
          </xsl:for-each>
        </xsl:for-each>
      </xsl:variable>
      <xsl:for-each select="exsl:node-set($pairs)/pair">
        <xsl:call-template name="link">
          <xsl:with-param name="id" select="concat('ident_', position())"/>
          <xsl:with-param name="source" select="string(@source)"/>
          <xsl:with-param name="type" select="'ident'"/>
          <xsl:with-param name="feats" select="/.."/>
          <xsl:with-param name="targets" select="@target"/>
        </xsl:call-template>
      </xsl:for-each>
      <xsl:message>rule chains-as-ident-links: <xsl:value-of select="count(exsl:node-set($pairs)/pair)"/> ident links between consecutive mentions of a chain</xsl:message>
    </xsl:if>
    <xsl:text>&lt;/coref:doc&gt;&#10;</xsl:text>
  </xsl:template>

  <xsl:template name="link">
    <xsl:param name="id"/>
    <xsl:param name="source"/>
    <xsl:param name="type"/>
    <xsl:param name="feats"/>
    <xsl:param name="targets"/>
    <xsl:text>&lt;coref:link ID="</xsl:text>
    <xsl:call-template name="attr"><xsl:with-param name="text" select="$id"/></xsl:call-template>
    <xsl:text>" href="#id(</xsl:text>
    <xsl:call-template name="attr"><xsl:with-param name="text" select="$source"/></xsl:call-template>
    <xsl:text>)" type="</xsl:text>
    <xsl:call-template name="attr"><xsl:with-param name="text" select="$type"/></xsl:call-template>
    <xsl:text>"</xsl:text>
    <xsl:call-template name="attributes"><xsl:with-param name="feats" select="$feats"/></xsl:call-template>
    <xsl:text>&gt;</xsl:text>
    <xsl:for-each select="$targets">
      <xsl:text>&lt;coref:anchor href="#id(</xsl:text>
      <xsl:call-template name="attr"><xsl:with-param name="text" select="."/></xsl:call-template>
      <xsl:text>)"/&gt;</xsl:text>
    </xsl:for-each>
    <xsl:text>&lt;/coref:link&gt;&#10;</xsl:text>
  </xsl:template>

  <!-- RAF attribute feats as XML attributes (name="value") -->
  <xsl:template name="attributes">
    <xsl:param name="feats"/>
    <xsl:for-each select="$feats">
      <xsl:value-of select="concat(' ', @name, '=&quot;')"/>
      <xsl:call-template name="attr"><xsl:with-param name="text" select="string(.)"/></xsl:call-template>
      <xsl:text>"</xsl:text>
    </xsl:for-each>
  </xsl:template>

  <!-- the words, each with the de tags that open before it and close after it -->
  <xsl:template name="words">
    <xsl:param name="words"/>
    <xsl:param name="ms"/>
    <xsl:param name="ids"/>
    <xsl:for-each select="$words">
      <xsl:variable name="n" select="string(@n)"/>
      <xsl:variable name="w" select="."/>
      <xsl:if test="position() &gt; 1"><xsl:text> </xsl:text></xsl:if>
      <xsl:for-each select="$ms[1]">
        <xsl:for-each select="key('starts', $n)">
          <xsl:sort select="@last" data-type="number" order="descending"/>
          <xsl:sort select="@i" data-type="number"/>
          <xsl:text>&lt;coref:de ID="</xsl:text>
          <xsl:call-template name="attr"><xsl:with-param name="text" select="@id"/></xsl:call-template>
          <xsl:text>"</xsl:text>
          <xsl:call-template name="attributes"><xsl:with-param name="feats" select="feat"/></xsl:call-template>
          <xsl:text>&gt;</xsl:text>
        </xsl:for-each>
      </xsl:for-each>
      <xsl:text>&lt;coref:w</xsl:text>
      <xsl:if test="$ids">
        <xsl:text> id="</xsl:text>
        <xsl:call-template name="attr"><xsl:with-param name="text" select="$w/@id"/></xsl:call-template>
        <xsl:text>"</xsl:text>
      </xsl:if>
      <xsl:text>&gt;</xsl:text>
      <xsl:call-template name="text"><xsl:with-param name="text" select="string($w)"/></xsl:call-template>
      <xsl:text>&lt;/coref:w&gt;</xsl:text>
      <xsl:for-each select="$ms[1]">
        <xsl:for-each select="key('ends', $n)"><xsl:text>&lt;/coref:de&gt;</xsl:text></xsl:for-each>
      </xsl:for-each>
    </xsl:for-each>
  </xsl:template>

  <!-- escaping as the Python writer does: text & < >; attributes also " tab newline CR -->
  <xsl:template name="text">
    <xsl:param name="text"/>
    <xsl:call-template name="escape">
      <xsl:with-param name="text" select="$text"/>
      <xsl:with-param name="chars" select="'&amp;&lt;&gt;'"/>
    </xsl:call-template>
  </xsl:template>
  <xsl:template name="attr">
    <xsl:param name="text"/>
    <xsl:call-template name="escape">
      <xsl:with-param name="text" select="$text"/>
      <xsl:with-param name="chars" select="'&amp;&lt;&gt;&quot;&#9;&#10;&#13;'"/>
    </xsl:call-template>
  </xsl:template>

  <xsl:template name="escape">
    <xsl:param name="text"/>
    <xsl:param name="chars"/>
    <xsl:choose>
      <xsl:when test="translate($text, $chars, '') = $text"><xsl:value-of select="$text"/></xsl:when>
      <xsl:otherwise>
        <xsl:variable name="c" select="substring($text, 1, 1)"/>
        <xsl:choose>
          <xsl:when test="not(contains($chars, $c))"><xsl:value-of select="$c"/></xsl:when>
          <xsl:when test="$c = '&amp;'">&amp;amp;</xsl:when>
          <xsl:when test="$c = '&lt;'">&amp;lt;</xsl:when>
          <xsl:when test="$c = '&gt;'">&amp;gt;</xsl:when>
          <xsl:when test="$c = '&quot;'">&amp;quot;</xsl:when>
          <xsl:when test="$c = '&#9;'">&amp;#9;</xsl:when>
          <xsl:when test="$c = '&#10;'">&amp;#10;</xsl:when>
          <xsl:otherwise>&amp;#13;</xsl:otherwise>
        </xsl:choose>
        <xsl:call-template name="escape">
          <xsl:with-param name="text" select="substring($text, 2)"/>
          <xsl:with-param name="chars" select="$chars"/>
        </xsl:call-template>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:template>
</xsl:stylesheet>
