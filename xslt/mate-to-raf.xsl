<?xml version="1.0" encoding="UTF-8"?>
<!-- MATE coreference XML (inline or standoff, prefixed or not) to RAF 2.0.
     Twin of corefio/formats/mate.py's reader: same tokens, markables, links and chains.
     Elements are matched by local name, whatever their namespace. Word positions come
     from one pass over the words (a node-set keyed by generate-id), so the time is linear.
     Standoff base files are read with document(), relative to the MATE file.
     Parameter stem: the document name when the file does not give one.
     Each rule applied is reported with xsl:message ("rule <name>: <count> ..."). -->
<xsl:stylesheet version="1.0"
                xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:exsl="http://exslt.org/common"
                extension-element-prefixes="exsl">
  <xsl:output method="xml" encoding="UTF-8" indent="no"/>
  <xsl:param name="stem" select="'document'"/>

  <xsl:key name="pos" match="p" use="@g"/>
  <xsl:key name="wid" match="p" use="@id"/>
  <xsl:key name="de" match="*[local-name()='de']"
           use="concat(generate-id(ancestor::*[local-name()='doc'][1]), '|', @ID)"/>
  <xsl:key name="ue" match="*[local-name()='ue']"
           use="concat(generate-id(ancestor::*[local-name()='doc'][1]), '|', @ID)"/>

  <xsl:variable name="nl" select="'&#10;'"/>

  <xsl:template match="/">
    <struct type="reference_annotation_collection" version="2.0">
      <xsl:value-of select="$nl"/>
      <xsl:choose>
        <xsl:when test="local-name(*) = 'mate'">
          <xsl:for-each select="*/*[local-name()='doc']">
            <xsl:call-template name="document">
              <xsl:with-param name="name">
                <xsl:choose>
                  <xsl:when test="@name"><xsl:value-of select="@name"/></xsl:when>
                  <xsl:when test="count(../*[local-name()='doc']) = 1"><xsl:value-of select="$stem"/></xsl:when>
                  <xsl:otherwise><xsl:value-of select="concat($stem, '_', position())"/></xsl:otherwise>
                </xsl:choose>
              </xsl:with-param>
            </xsl:call-template>
          </xsl:for-each>
        </xsl:when>
        <xsl:otherwise>
          <xsl:message>rule root-as-document: the root element is read as one document</xsl:message>
          <xsl:for-each select="*">
            <xsl:call-template name="document">
              <xsl:with-param name="name">
                <xsl:choose>
                  <xsl:when test="@name"><xsl:value-of select="@name"/></xsl:when>
                  <xsl:otherwise><xsl:value-of select="$stem"/></xsl:otherwise>
                </xsl:choose>
              </xsl:with-param>
            </xsl:call-template>
          </xsl:for-each>
        </xsl:otherwise>
      </xsl:choose>
    </struct>
    <xsl:value-of select="$nl"/>
  </xsl:template>

  <xsl:template name="document">
    <xsl:param name="name"/>
    <xsl:variable name="doc" select="."/>
    <xsl:variable name="standoff" select="boolean(@words)"/>
    <!-- the element holding the words: this doc, or the root of its base file -->
    <xsl:variable name="base" select="document(@words, .)/* | self::*[not($standoff)]"/>
    <xsl:if test="$standoff">
      <xsl:message>rule standoff-base: words read from <xsl:value-of select="@words"/></xsl:message>
    </xsl:if>
    <xsl:variable name="words" select="$base//*[local-name()='w']"/>
    <!-- one pass over the words: position, id (the default word_n when missing) -->
    <xsl:variable name="table">
      <xsl:for-each select="$words">
        <p g="{generate-id()}" n="{position()}">
          <xsl:attribute name="id">
            <xsl:choose>
              <xsl:when test="@id"><xsl:value-of select="@id"/></xsl:when>
              <xsl:otherwise><xsl:value-of select="concat('word_', position())"/></xsl:otherwise>
            </xsl:choose>
          </xsl:attribute>
        </p>
      </xsl:for-each>
    </xsl:variable>
    <xsl:variable name="positions" select="exsl:node-set($table)"/>
    <xsl:variable name="explicit" select="boolean($positions/p[@id != concat('word_', @n)])"/>
    <xsl:variable name="ctable">
      <xsl:call-template name="column-names">
        <xsl:with-param name="attributes" select="$words/@*[name() != 'id']"/>
      </xsl:call-template>
    </xsl:variable>
    <xsl:variable name="columns" select="exsl:node-set($ctable)/c"/>
    <xsl:text>&#10;</xsl:text>
    <struct type="document" name="{$name}">
      <xsl:if test="@part"><xsl:attribute name="part"><xsl:value-of select="@part"/></xsl:attribute></xsl:if>
      <xsl:value-of select="$nl"/>
      <struct type="primary_data">
        <xsl:if test="$explicit">
          <xsl:attribute name="ids">yes</xsl:attribute>
          <xsl:message>rule word-ids: explicit word ids kept</xsl:message>
        </xsl:if>
        <xsl:value-of select="$nl"/>
        <xsl:for-each select="$columns">
          <feat type="column" name="{@name}"/>
          <xsl:value-of select="$nl"/>
        </xsl:for-each>
        <xsl:variable name="sentences" select="$base//*[local-name()='s']"/>
        <xsl:choose>
          <xsl:when test="$sentences">
            <xsl:message>rule s-sentence: <xsl:value-of select="count($sentences)"/> sentences</xsl:message>
            <xsl:for-each select="$sentences">
              <struct type="sentence">
                <xsl:if test="@id"><xsl:attribute name="id"><xsl:value-of select="@id"/></xsl:attribute></xsl:if>
                <xsl:for-each select="@*[name() != 'id']">
                  <feat type="attribute" name="{name()}"><xsl:value-of select="."/></feat>
                </xsl:for-each>
                <xsl:value-of select="$nl"/>
                <xsl:for-each select=".//*[local-name()='w']">
                  <xsl:call-template name="word">
                    <xsl:with-param name="positions" select="$positions"/>
                    <xsl:with-param name="explicit" select="$explicit"/>
                    <xsl:with-param name="columns" select="$columns"/>
                  </xsl:call-template>
                </xsl:for-each>
              </struct>
              <xsl:value-of select="$nl"/>
            </xsl:for-each>
          </xsl:when>
          <xsl:otherwise>
            <xsl:for-each select="$words">
              <xsl:call-template name="word">
                <xsl:with-param name="positions" select="$positions"/>
                <xsl:with-param name="explicit" select="$explicit"/>
                <xsl:with-param name="columns" select="$columns"/>
              </xsl:call-template>
            </xsl:for-each>
          </xsl:otherwise>
        </xsl:choose>
      </struct>
      <xsl:value-of select="$nl"/>
      <xsl:message>rule w-token: <xsl:value-of select="count($words)"/> words</xsl:message>
      <!-- universe entities -->
      <xsl:variable name="ues" select=".//*[local-name()='ue']"/>
      <xsl:if test="$ues">
        <xsl:message>rule ue-entity: <xsl:value-of select="count($ues)"/> universe entities</xsl:message>
      </xsl:if>
      <xsl:for-each select="$ues">
        <struct type="entity" id="{@ID}">
          <xsl:for-each select="@*[name() != 'ID']">
            <feat type="attribute" name="{name()}"><xsl:value-of select="."/></feat>
          </xsl:for-each>
        </struct>
        <xsl:value-of select="$nl"/>
      </xsl:for-each>
      <!-- discourse entities -->
      <xsl:variable name="des" select=".//*[local-name()='de']"/>
      <xsl:choose>
        <xsl:when test="$standoff">
          <xsl:message>rule de-href-markable: <xsl:value-of select="count($des)"/> standoff discourse entities</xsl:message>
        </xsl:when>
        <xsl:otherwise>
          <xsl:message>rule de-inline-markable: <xsl:value-of select="count($des)"/> discourse entities</xsl:message>
        </xsl:otherwise>
      </xsl:choose>
      <xsl:for-each select="$des">
        <xsl:variable name="span">
          <xsl:choose>
            <xsl:when test="$standoff">
              <xsl:variable name="ref" select="substring-after(@href, '#')"/>
              <xsl:variable name="a" select="substring-before(substring-after($ref, 'id('), ')')"/>
              <xsl:variable name="b" select="substring-before(substring-after($ref, '..id('), ')')"/>
              <xsl:for-each select="$positions">
                <xsl:variable name="first" select="key('wid', $a)/@n"/>
                <xsl:if test="not($first)">
                  <xsl:message terminate="yes">error: a discourse entity names the word <xsl:value-of select="$a"/>, not in the base file</xsl:message>
                </xsl:if>
                <xsl:value-of select="$first"/>
                <xsl:if test="$b != ''">
                  <xsl:if test="not(key('wid', $b))">
                    <xsl:message terminate="yes">error: a discourse entity names the word <xsl:value-of select="$b"/>, not in the base file</xsl:message>
                  </xsl:if>
                  <xsl:if test="key('wid', $b)/@n != $first">
                    <xsl:value-of select="concat('..', key('wid', $b)/@n)"/>
                  </xsl:if>
                </xsl:if>
              </xsl:for-each>
            </xsl:when>
            <xsl:otherwise>
              <xsl:variable name="g1" select="generate-id(descendant::*[local-name()='w'][1])"/>
              <xsl:variable name="g2" select="generate-id((descendant::*[local-name()='w'])[last()])"/>
              <xsl:if test="$g1 = ''">
                <xsl:message terminate="yes">error: discourse entity <xsl:value-of select="@ID"/> covers no word</xsl:message>
              </xsl:if>
              <xsl:for-each select="$positions">
                <xsl:value-of select="key('pos', $g1)/@n"/>
                <xsl:if test="$g1 != $g2">
                  <xsl:value-of select="concat('..', key('pos', $g2)/@n)"/>
                </xsl:if>
              </xsl:for-each>
            </xsl:otherwise>
          </xsl:choose>
        </xsl:variable>
        <struct type="markable" id="{@ID}" span="{$span}">
          <xsl:for-each select="@*[name() != 'ID' and name() != 'href']">
            <feat type="attribute" name="{name()}"><xsl:value-of select="."/></feat>
          </xsl:for-each>
        </struct>
        <xsl:value-of select="$nl"/>
      </xsl:for-each>
      <!-- links: the anaphor (href) to its anchors -->
      <xsl:variable name="links" select=".//*[local-name()='link']"/>
      <xsl:if test="$links">
        <xsl:message>rule link-reflink: <xsl:value-of select="count($links)"/> links (ident = coreference)</xsl:message>
      </xsl:if>
      <xsl:if test="$links[count(*[local-name()='anchor']) &gt; 1]">
        <xsl:message>rule anchors-grouped: <xsl:value-of select="count($links[count(*[local-name()='anchor']) &gt; 1])"/> ambiguous links keep their anchors together</xsl:message>
      </xsl:if>
      <xsl:for-each select="$links">
        <xsl:variable name="anchors" select="*[local-name()='anchor']"/>
        <xsl:variable name="kinds">
          <xsl:for-each select="$anchors">
            <xsl:variable name="t">
              <xsl:call-template name="href-id"><xsl:with-param name="href" select="@href"/></xsl:call-template>
            </xsl:variable>
            <xsl:choose>
              <xsl:when test="key('ue', concat(generate-id($doc), '|', $t)) and not(key('de', concat(generate-id($doc), '|', $t)))">e</xsl:when>
              <xsl:otherwise>m</xsl:otherwise>
            </xsl:choose>
          </xsl:for-each>
        </xsl:variable>
        <xsl:if test="contains($kinds, 'e') and contains($kinds, 'm')">
          <xsl:message terminate="yes">error: a link anchors both discourse and universe entities</xsl:message>
        </xsl:if>
        <struct type="reflink">
          <xsl:attribute name="id">
            <xsl:choose>
              <xsl:when test="@ID"><xsl:value-of select="@ID"/></xsl:when>
              <xsl:otherwise><xsl:value-of select="concat('link_', position())"/></xsl:otherwise>
            </xsl:choose>
          </xsl:attribute>
          <xsl:attribute name="reflinktype">
            <xsl:choose>
              <xsl:when test="not(@type) or @type = 'ident' or @type = ''">coreference</xsl:when>
              <xsl:otherwise><xsl:value-of select="@type"/></xsl:otherwise>
            </xsl:choose>
          </xsl:attribute>
          <xsl:attribute name="source">
            <xsl:call-template name="href-id"><xsl:with-param name="href" select="@href"/></xsl:call-template>
          </xsl:attribute>
          <xsl:if test="contains($kinds, 'e')"><xsl:attribute name="kind">entity</xsl:attribute></xsl:if>
          <xsl:if test="count($anchors) = 1">
            <xsl:attribute name="target">
              <xsl:call-template name="href-id"><xsl:with-param name="href" select="$anchors/@href"/></xsl:call-template>
            </xsl:attribute>
          </xsl:if>
          <xsl:for-each select="@*[name() != 'ID' and name() != 'href' and name() != 'type']">
            <feat type="attribute" name="{name()}"><xsl:value-of select="."/></feat>
          </xsl:for-each>
          <xsl:if test="count($anchors) &gt; 1">
            <xsl:for-each select="$anchors">
              <feat type="target">
                <xsl:attribute name="target">
                  <xsl:call-template name="href-id"><xsl:with-param name="href" select="@href"/></xsl:call-template>
                </xsl:attribute>
              </feat>
            </xsl:for-each>
          </xsl:if>
        </struct>
        <xsl:value-of select="$nl"/>
      </xsl:for-each>
    </struct>
    <xsl:value-of select="$nl"/>
  </xsl:template>

  <!-- the distinct attribute names, in order of first appearance: one pass over the
       attributes per name (grouping with a key would build a node-set as large as the
       document for every word) -->
  <xsl:template name="column-names">
    <xsl:param name="attributes"/>
    <xsl:param name="seen" select="' '"/>
    <xsl:variable name="next" select="$attributes[not(contains($seen, concat(' ', name(), ' ')))][1]"/>
    <xsl:if test="$next">
      <c name="{name($next)}"/>
      <xsl:call-template name="column-names">
        <xsl:with-param name="attributes" select="$attributes"/>
        <xsl:with-param name="seen" select="concat($seen, name($next), ' ')"/>
      </xsl:call-template>
    </xsl:if>
  </xsl:template>

  <!-- X of "#id(X)", "#X" or "X" -->
  <xsl:template name="href-id">
    <xsl:param name="href"/>
    <xsl:variable name="local">
      <xsl:choose>
        <xsl:when test="contains($href, '#')"><xsl:value-of select="substring-after($href, '#')"/></xsl:when>
        <xsl:otherwise><xsl:value-of select="$href"/></xsl:otherwise>
      </xsl:choose>
    </xsl:variable>
    <xsl:choose>
      <xsl:when test="starts-with(normalize-space($local), 'id(')">
        <xsl:value-of select="normalize-space(substring-before(substring-after($local, 'id('), ')'))"/>
      </xsl:when>
      <xsl:otherwise><xsl:value-of select="normalize-space($local)"/></xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <xsl:template name="word">
    <xsl:param name="positions"/>
    <xsl:param name="explicit"/>
    <xsl:param name="columns"/>
    <xsl:variable name="w" select="."/>
    <xsl:variable name="g" select="generate-id()"/>
    <w>
      <xsl:for-each select="$positions">
        <xsl:variable name="p" select="key('pos', $g)"/>
        <xsl:attribute name="n"><xsl:value-of select="$p/@n"/></xsl:attribute>
        <xsl:if test="$explicit"><xsl:attribute name="id"><xsl:value-of select="$p/@id"/></xsl:attribute></xsl:if>
      </xsl:for-each>
      <xsl:if test="$columns">
        <xsl:attribute name="v">
          <xsl:for-each select="$columns">
            <xsl:if test="position() &gt; 1">|</xsl:if>
            <xsl:variable name="value" select="$w/@*[name() = current()/@name]"/>
            <xsl:if test="$value">
              <xsl:call-template name="pack"><xsl:with-param name="value" select="string($value)"/></xsl:call-template>
            </xsl:if>
          </xsl:for-each>
        </xsl:attribute>
      </xsl:if>
      <xsl:value-of select="."/>
    </w>
    <xsl:value-of select="$nl"/>
  </xsl:template>

  <!-- one field of RAF's packed v attribute: "" is \e, | and \ are escaped -->
  <xsl:template name="pack">
    <xsl:param name="value"/>
    <xsl:choose>
      <xsl:when test="$value = ''">\e</xsl:when>
      <xsl:when test="contains($value, '\') or contains($value, '|')">
        <xsl:variable name="c" select="substring($value, 1, 1)"/>
        <xsl:if test="$c = '\' or $c = '|'">\</xsl:if>
        <xsl:value-of select="$c"/>
        <xsl:if test="string-length($value) &gt; 1">
          <xsl:call-template name="pack-rest"><xsl:with-param name="value" select="substring($value, 2)"/></xsl:call-template>
        </xsl:if>
      </xsl:when>
      <xsl:otherwise><xsl:value-of select="$value"/></xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <xsl:template name="pack-rest">
    <xsl:param name="value"/>
    <xsl:variable name="c" select="substring($value, 1, 1)"/>
    <xsl:if test="$c = '\' or $c = '|'">\</xsl:if>
    <xsl:value-of select="$c"/>
    <xsl:if test="string-length($value) &gt; 1">
      <xsl:call-template name="pack-rest"><xsl:with-param name="value" select="substring($value, 2)"/></xsl:call-template>
    </xsl:if>
  </xsl:template>
</xsl:stylesheet>
